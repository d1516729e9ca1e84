-- token-bucket: capacity B refilled continuously at L/W per microsecond (docs/algorithms.md).
-- Twin: dev.limiter.TokenBucket. Follows decide.lua, which reads the time and the arguments.
--
-- KEYS[1]  hash: x<i> = whole tokens of limit i, f<i> = the fraction over W (0 <= f < W), so the
--          bucket holds x + f/W tokens (x < 0: debt taken by waiting callers); t = time of the
--          last change. An absent key is a full bucket.
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

if count == 1 then
  local limit, window, burst = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
  local stored = redis.call('HMGET', key, 't', 'x1', 'f1')
  local last = tonumber(stored[1]) or now
  local elapsed = (now > last) and (now - last) or 0
  local x, f = tonumber(stored[2]), tonumber(stored[3])
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
    redis.call('HSET', key, 't', format('%d', (now > last) and now or last), 'x1', format('%d', x), 'f1', format('%d', f))
    local ms = ceildiv(reset, 1000)
    redis.call('PEXPIRE', key, format('%d', (ms > 1) and ms or 1))
  end
  return {allowed and 1 or 0, 1, (x > 0) and x or 0, reset, retry_after, violated, wait, reset}
end

local fields = {'t'}
for i = 1, count do
  fields[2 * i] = 'x' .. i
  fields[2 * i + 1] = 'f' .. i
end
local stored = redis.call('HMGET', key, unpack(fields))
local last = tonumber(stored[1]) or now
local elapsed = (now > last) and (now - last) or 0

-- Pass 1: refill each limit; the first limit the cost exceeds, and the longest wait.
local state = {}
local over, worst, violated = 0, 0, 0
for i = 1, count do
  local limit, window, burst = tonumber(ARGV[3 * i + 2]), tonumber(ARGV[3 * i + 3]), tonumber(ARGV[3 * i + 4])
  local x, f = tonumber(stored[2 * i]), tonumber(stored[2 * i + 1])
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
local values = allowed and {'t', format('%d', (now > last) and now or last)}
local reported, lowest, reported_reset, reset_after = 0, 0, 0, 0
for i = 1, count do
  local x, f, reset = state[6 * i - 2], state[6 * i - 1], state[6 * i]
  if allowed then
    x = x - permits
    reset = time_to(state[6 * i - 3], x, f, state[6 * i - 5], state[6 * i - 4])
    values[4 * i - 1], values[4 * i] = 'x' .. i, format('%d', x)
    values[4 * i + 1], values[4 * i + 2] = 'f' .. i, format('%d', f)
  end
  if reported == 0 or x < lowest then
    reported, lowest, reported_reset = i, x, reset
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
