-- gcra: generic cell rate algorithm, as in redis-cell: emission interval T = W/L, tolerance B*T
-- (docs/algorithms.md). Twin: dev.limiter.Gcra. Follows decide.lua, which reads the time and the
-- arguments.
--
-- KEYS[1]  string of 3n + 1 doubles, little-endian (struct.pack('<d...')), for n limits: t, then
--          a<i>, f<i>, l<i> of each limit i. a<i> = whole microseconds of limit i's theoretical
--          arrival time tau, f<i> = its fraction over l<i>, the limit L it was written under
--          (0 <= f < l), so tau = a + f/l (beyond now + B*T: debt taken by waiting callers); t = the
--          latest time of a change, so that a clock going backwards stands still instead of reading as
--          more debt. All are whole numbers below 2^53, which a double holds exactly. An absent key (or
--          one of another length), like tau <= now, is an idle limit. A state written under another
--          limit (a limiter retuned with on-retune: keep) has its fraction rounded up to one over the
--          new L. One string of doubles rather than a hash of decimals: GET, struct.unpack and one
--          SET ... PX cost Redis less than HMGET, tonumber, HSET and PEXPIRE (docs/script-costs.md).
--          The key's tail (gc2) differs from that of the hash layout (gc), so that no script reads the
--          other layout during a rolling deploy.
-- ARGV[4]  unused
--
-- Straight-line code, no tables but the reply (docs/script-costs.md): one limit has its own path;
-- several limits take two passes, decide, then apply-and-report. Fractions over L stay below L, so
-- a sum of two carries at most 1 and ceil(f / L) is 1 exactly when f > 0.

local key = KEYS[1]
local format = string.format
local pack, unpack_doubles = struct.pack, struct.unpack

-- tau as whole microseconds a and a fraction f over L, from the stored a, f over the limit 'over':
-- max(tau, at), the fraction rounded up to one over L, never earlier.
local function arrival(a, f, over, at, limit)
  if not a or not f or a < at then
    -- tau <= at: max(tau, at) = at.
    return at, 0
  end
  if over == limit then
    return a, f
  end
  local q, r = muldivmod(f, limit, over)
  if r > 0 then
    q = q + 1
  end
  if q == limit then
    return a + 1, 0
  end
  return a, q
end

if count == 1 then
  local limit, window, burst = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
  local stored = redis.call('GET', key)
  local at, a, f, over = now, nil, nil, nil
  if stored and #stored == 32 then
    local t
    t, a, f, over = unpack_doubles('<dddd', stored)
    if t > now then
      at = t
    end
  end
  a, f = arrival(a, f, over, at, limit)
  local allowed, wait, violated, retry_after = false, 0, 0, 0
  if permits == 0 then
    -- Reads the quota: nothing taken, nothing written.
  elseif permits > burst then
    violated, retry_after = 1, -1
  else
    -- tau' = tau + c*T, and ceil(tau' - at - B*T): 0 or less when the cells fit the tolerance.
    local q, r = muldivmod(permits, window, limit)
    local na, nf = a + q, f + r
    if nf >= limit then
      na, nf = na + 1, nf - limit
    end
    local bq, br = muldivmod(burst, window, limit)
    local retry = na - at - bq + ((nf > br) and 1 or 0)
    if retry <= 0 then
      allowed = true
    elseif retry <= max_wait then
      allowed, wait = true, retry
    else
      violated, retry_after = 1, retry
    end
    if allowed then
      a, f = na, nf
    end
  end
  -- floor(B - (tau - at) / T) = B - ceil(((a - at) * L + f) / W); below 0 while callers wait.
  local q, r = muldivmod(limit, a - at, window)
  local remaining = burst - q - ceildiv(r + f, window)
  local reset = a - at + ((f > 0) and 1 or 0)
  if allowed then
    local ms = ceildiv(reset, 1000)
    redis.call('SET', key, pack('<dddd', at, a, f, limit), 'PX', format('%d', (ms > 1) and ms or 1))
  end
  return {allowed and 1 or 0, 1, (remaining > 0) and remaining or 0, reset, retry_after, violated, wait, reset}
end

local layout = '<' .. string.rep('d', 3 * count + 1)
local stored = {}
local value = redis.call('GET', key)
if value and #value == 8 * (3 * count + 1) then
  stored = {unpack_doubles(layout, value)}
end
local at = stored[1] or now
if now > at then
  at = now
end

-- Pass 1: each limit's tau; the first limit the cost exceeds, and the longest wait.
local state = {}
local over, worst, violated = 0, 0, 0
for i = 1, count do
  local limit, window, burst = tonumber(ARGV[3 * i + 2]), tonumber(ARGV[3 * i + 3]), tonumber(ARGV[3 * i + 4])
  local a, f = arrival(stored[3 * i - 1], stored[3 * i], stored[3 * i + 1] or limit, at, limit)
  state[5 * i - 4], state[5 * i - 3], state[5 * i - 2], state[5 * i - 1], state[5 * i] = limit, window, burst, a, f
  if permits > burst then
    if over == 0 then
      over = i
    end
  else
    local q, r = muldivmod(permits, window, limit)
    local na, nf = a + q, f + r
    if nf >= limit then
      na, nf = na + 1, nf - limit
    end
    local bq, br = muldivmod(burst, window, limit)
    local retry = na - at - bq + ((nf > br) and 1 or 0)
    if retry > worst then
      worst, violated = retry, i
    end
  end
end
local allowed, wait, retry_after = false, 0, 0
if permits == 0 then
  violated = 0
elseif over > 0 then
  violated, retry_after = over, -1
elseif worst == 0 then
  allowed = true
elseif worst <= max_wait then
  allowed, wait, violated = true, worst, 0
else
  retry_after = worst
end

-- Pass 2: apply the decision; the reply's lowest remaining and the resets.
local values = allowed and {at}
local reported, lowest, reported_reset, reset_after = 0, 0, 0, 0
for i = 1, count do
  local limit, window, burst, a, f = state[5 * i - 4], state[5 * i - 3], state[5 * i - 2], state[5 * i - 1], state[5 * i]
  if allowed then
    local q, r = muldivmod(permits, window, limit)
    a, f = a + q, f + r
    if f >= limit then
      a, f = a + 1, f - limit
    end
    values[3 * i - 1], values[3 * i], values[3 * i + 1] = a, f, limit
  end
  local q, r = muldivmod(limit, a - at, window)
  local remaining = burst - q - ceildiv(r + f, window)
  local reset = a - at + ((f > 0) and 1 or 0)
  if reported == 0 or remaining < lowest then
    reported, lowest, reported_reset = i, remaining, reset
  end
  if reset > reset_after then
    reset_after = reset
  end
end
if allowed then
  local ms = ceildiv(reset_after, 1000)
  redis.call('SET', key, pack(layout, unpack(values)), 'PX', format('%d', (ms > 1) and ms or 1))
end
return {allowed and 1 or 0, reported, (lowest > 0) and lowest or 0, reset_after, retry_after, violated, wait, reported_reset}
