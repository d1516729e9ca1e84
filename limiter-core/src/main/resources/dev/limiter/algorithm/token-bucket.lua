-- token-bucket: capacity B refilled continuously at L/W per microsecond (docs/algorithms.md).
-- Twin: dev.limiter.TokenBucket. Follows decide.lua, which reads the time and the arguments.
--
-- KEYS[1]  string of 1 + 2n doubles, little-endian (struct.pack('<d...')), for n limits: t = time of
--          the last change, then per limit x<i> = whole tokens, f<i> = the fraction over W (0 <= f < W),
--          so the bucket holds x + f/W tokens (x < 0: debt taken by waiting callers); whole numbers
--          below 2^53, which a double holds exactly. An absent key (or one of another length) is a full
--          bucket. One string rather than a hash of decimals: GET, struct.unpack and one SET ... PX
--          cost Redis less than HMGET, tonumber, HSET and PEXPIRE (docs/script-costs.md). The key's
--          tail (tb2) differs from that of the hash layout (tb), so that no script reads the other
--          layout during a rolling deploy.
-- ARGV[4]  unused
--
-- Straight-line code, no tables but the reply (docs/script-costs.md): one limit has its own path;
-- several limits take two passes, refill-and-decide, then apply-and-report.

-- ceil(((k - x) * W - f) / L): microseconds until the bucket holds k tokens (0 if it does).
local function time_to(k, x, f, limit, window)
  if x >= k then
    return 0
  end
  local q, r = muldivmod(k - x, window, limit)
  return q + ceildiv(r - f, limit)
end

local key = KEYS[1]
local format = string.format
local pack, unpack_doubles = struct.pack, struct.unpack

if count == 1 then
  local limit, window, burst = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
  local stored = redis.call('GET', key)
  local last, x, f = now, nil, nil
  if stored and #stored == 24 then
    last, x, f = unpack_doubles('<ddd', stored)
  end
  local elapsed = (now > last) and (now - last) or 0
  -- Microseconds until the bucket is full: before the refill, and (the same less elapsed) after it.
  local reset = (x and f) and time_to(burst, x, f, limit, window) or 0
  if reset > elapsed then
    -- Refill elapsed * L / W tokens, exactly; f + r stays below 2W.
    local q, r = muldivmod(limit, elapsed, window)
    x, f = x + q, f + r
    if f >= window then
      x, f = x + 1, f - window
    end
    reset = reset - elapsed
  else
    x, f, reset = burst, 0, 0
  end
  local allowed, wait, violated, retry_after = false, 0, 0, 0
  if permits == 0 then
    -- Reads the quota: nothing taken, nothing written.
  elseif permits > burst then
    violated, retry_after = 1, -1
  else
    local retry = time_to(permits, x, f, limit, window)
    if retry == 0 then
      allowed = true
    elseif retry <= max_wait then
      allowed, wait = true, retry
    else
      violated, retry_after = 1, retry
    end
  end
  if allowed then
    x = x - permits
    reset = time_to(burst, x, f, limit, window)
    local ms = ceildiv(reset, 1000)
    redis.call('SET', key, pack('<ddd', (now > last) and now or last, x, f), 'PX', format('%d', (ms > 1) and ms or 1))
  end
  return {allowed and 1 or 0, 1, (x > 0) and x or 0, reset, retry_after, violated, wait, reset}
end

local layout = '<' .. string.rep('d', 1 + 2 * count)
local stored = {}
local value = redis.call('GET', key)
if value and #value == 8 * (1 + 2 * count) then
  stored = {unpack_doubles(layout, value)}
end
local last = stored[1] or now
local elapsed = (now > last) and (now - last) or 0

-- Pass 1: refill each limit; the first limit the cost exceeds, and the longest wait.
local state = {}
local over, worst, violated = 0, 0, 0
for i = 1, count do
  local limit, window, burst = tonumber(ARGV[3 * i + 2]), tonumber(ARGV[3 * i + 3]), tonumber(ARGV[3 * i + 4])
  local x, f = stored[2 * i], stored[2 * i + 1]
  local reset = (x and f) and time_to(burst, x, f, limit, window) or 0
  if reset > elapsed then
    local q, r = muldivmod(limit, elapsed, window)
    x, f = x + q, f + r
    if f >= window then
      x, f = x + 1, f - window
    end
    reset = reset - elapsed
  else
    x, f, reset = burst, 0, 0
  end
  state[6 * i - 5], state[6 * i - 4], state[6 * i - 3] = limit, window, burst
  state[6 * i - 2], state[6 * i - 1], state[6 * i] = x, f, reset
  if permits > burst then
    if over == 0 then
      over = i
    end
  else
    local retry = time_to(permits, x, f, limit, window)
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
local values = allowed and {(now > last) and now or last}
local reported, lowest, reported_reset, reset_after = 0, 0, 0, 0
for i = 1, count do
  local x, f, reset = state[6 * i - 2], state[6 * i - 1], state[6 * i]
  if allowed then
    x = x - permits
    reset = time_to(state[6 * i - 3], x, f, state[6 * i - 5], state[6 * i - 4])
    values[2 * i], values[2 * i + 1] = x, f
  end
  if reported == 0 or x < lowest then
    reported, lowest, reported_reset = i, x, reset
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
