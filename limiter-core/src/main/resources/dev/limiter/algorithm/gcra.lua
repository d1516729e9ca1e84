-- gcra: generic cell rate algorithm, as in redis-cell: emission interval T = W/L, tolerance B*T
-- (docs/algorithms.md). Twin: dev.limiter.Gcra. Follows decide.lua, which reads the time and the
-- arguments.
--
-- KEYS[1]  hash: a<i> = whole microseconds of limit i's theoretical arrival time tau, f<i> = its
--          fraction over l<i>, the limit L it was written under (0 <= f < l), so tau = a + f/l
--          (beyond now + B*T: debt taken by waiting callers); t = the latest time of a change, so
--          that a clock going backwards stands still instead of reading as more debt. An absent key,
--          like tau <= now, is an idle limit. A state written under another limit (a limiter retuned
--          with on-retune: keep) has its fraction rounded up to one over the new L; without l<i>, the
--          state of an earlier version, it is over the current L.
-- ARGV[4]  unused
--
-- Straight-line code, no tables but the reply (docs/script-costs.md): one limit has its own path;
-- several limits take two passes, decide, then apply-and-report. Fractions over L stay below L, so
-- a sum of two carries at most 1 and ceil(f / L) is 1 exactly when f > 0.

local key = KEYS[1]
local format = string.format

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
  local stored = redis.call('HMGET', key, 't', 'a1', 'f1', 'l1')
  local at = tonumber(stored[1]) or now
  if now > at then
    at = now
  end
  local a, f = arrival(tonumber(stored[2]), tonumber(stored[3]), tonumber(stored[4]) or limit, at, limit)
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
      redis.call('HSET', key, 't', format('%d', at), 'a1', format('%d', a), 'f1', format('%d', f), 'l1', ARGV[5])
    end
  end
  -- floor(B - (tau - at) / T) = B - ceil(((a - at) * L + f) / W); below 0 while callers wait.
  local q, r = muldivmod(limit, a - at, window)
  local remaining = burst - q - ceildiv(r + f, window)
  local reset = a - at + ((f > 0) and 1 or 0)
  if allowed then
    local ms = ceildiv(reset, 1000)
    redis.call('PEXPIRE', key, format('%d', (ms > 1) and ms or 1))
  end
  return {allowed and 1 or 0, 1, (remaining > 0) and remaining or 0, reset, retry_after, violated, wait, reset}
end

local fields = {'t'}
for i = 1, count do
  fields[3 * i - 1] = 'a' .. i
  fields[3 * i] = 'f' .. i
  fields[3 * i + 1] = 'l' .. i
end
local stored = redis.call('HMGET', key, unpack(fields))
local at = tonumber(stored[1]) or now
if now > at then
  at = now
end

-- Pass 1: each limit's tau; the first limit the cost exceeds, and the longest wait.
local state = {}
local over, worst, violated = 0, 0, 0
for i = 1, count do
  local limit, window, burst = tonumber(ARGV[3 * i + 2]), tonumber(ARGV[3 * i + 3]), tonumber(ARGV[3 * i + 4])
  local a, f = arrival(tonumber(stored[3 * i - 1]), tonumber(stored[3 * i]), tonumber(stored[3 * i + 1]) or limit, at, limit)
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
local values = allowed and {'t', format('%d', at)}
local reported, lowest, reported_reset, reset_after = 0, 0, 0, 0
for i = 1, count do
  local limit, window, burst, a, f = state[5 * i - 4], state[5 * i - 3], state[5 * i - 2], state[5 * i - 1], state[5 * i]
  if allowed then
    local q, r = muldivmod(permits, window, limit)
    a, f = a + q, f + r
    if f >= limit then
      a, f = a + 1, f - limit
    end
    values[6 * i - 3], values[6 * i - 2] = 'a' .. i, format('%d', a)
    values[6 * i - 1], values[6 * i] = 'f' .. i, format('%d', f)
    values[6 * i + 1], values[6 * i + 2] = 'l' .. i, ARGV[3 * i + 2]
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
  redis.call('HSET', key, unpack(values))
  local ms = ceildiv(reset_after, 1000)
  redis.call('PEXPIRE', key, format('%d', (ms > 1) and ms or 1))
end
return {allowed and 1 or 0, reported, (lowest > 0) and lowest or 0, reset_after, retry_after, violated, wait, reported_reset}
