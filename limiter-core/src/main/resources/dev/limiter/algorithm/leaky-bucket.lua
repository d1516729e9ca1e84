-- leaky-bucket: capacity B whose level drains continuously at L/W per microsecond (docs/algorithms.md).
-- Twin: dev.limiter.LeakyBucket. Follows decide.lua, which reads the time and the arguments.
--
-- KEYS[1]  string of 1 + 2n doubles, little-endian (struct.pack('<d...')), for n limits: t = time of
--          the last change, then per limit v<i> = whole permits in the bucket, f<i> = the fraction over
--          W (0 <= f < W), so the level is v + f/W (above B: debt taken by waiting callers); whole
--          numbers below 2^53, which a double holds exactly. An absent key (or one of another length)
--          is an empty bucket. One string rather than a hash of decimals: GET, struct.unpack and one
--          SET ... PX cost Redis less than HMGET, tonumber, HSET and PEXPIRE (docs/script-costs.md).
--          The key's tail (lb2) differs from that of the hash layout (lb), so that no script reads the
--          other layout during a rolling deploy.
-- ARGV[4]  unused
--
-- Straight-line code, no tables but the reply (docs/script-costs.md): one limit has its own path;
-- several limits take two passes, drain-and-decide, then apply-and-report.

-- ceil(((v - k) * W + f) / L): microseconds until the level is down to k (0 if it is).
local function time_to(k, v, f, limit, window)
  if v < k then
    return 0
  end
  local q, r = muldivmod(v - k, window, limit)
  return q + ceildiv(r + f, limit)
end

local key = KEYS[1]
local format = string.format
local pack, unpack_doubles = struct.pack, struct.unpack

if count == 1 then
  local limit, window, burst = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
  local stored = redis.call('GET', key)
  local last, v, f = now, nil, nil
  if stored and #stored == 24 then
    last, v, f = unpack_doubles('<ddd', stored)
  end
  local elapsed = (now > last) and (now - last) or 0
  -- Microseconds until the bucket is empty: before draining, and (the same less elapsed) after it.
  -- Comparing with it first keeps elapsed, and so the product below, bounded.
  local reset = (v and f) and time_to(0, v, f, limit, window) or 0
  if reset > elapsed then
    -- Drain elapsed * L / W permits, exactly; the level stays above 0, and f - r above -W.
    local q, r = muldivmod(limit, elapsed, window)
    v, f = v - q, f - r
    if f < 0 then
      v, f = v - 1, f + window
    end
    reset = reset - elapsed
  else
    v, f, reset = 0, 0, 0
  end
  local allowed, wait, violated, retry_after = false, 0, 0, 0
  if permits == 0 then
    -- Reads the quota: nothing taken, nothing written.
  elseif permits > burst then
    violated, retry_after = 1, -1
  else
    local retry = time_to(burst - permits, v, f, limit, window)
    if retry == 0 then
      allowed = true
    elseif retry <= max_wait then
      allowed, wait = true, retry
    else
      violated, retry_after = 1, retry
    end
  end
  if allowed then
    v = v + permits
    reset = time_to(0, v, f, limit, window)
    local ms = ceildiv(reset, 1000)
    redis.call('SET', key, pack('<ddd', (now > last) and now or last, v, f), 'PX', format('%d', (ms > 1) and ms or 1))
  end
  -- floor(B - v - f/W); below 0 while callers wait.
  local remaining = burst - v - ((f > 0) and 1 or 0)
  return {allowed and 1 or 0, 1, (remaining > 0) and remaining or 0, reset, retry_after, violated, wait, reset}
end

local layout = '<' .. string.rep('d', 1 + 2 * count)
local stored = {}
local value = redis.call('GET', key)
if value and #value == 8 * (1 + 2 * count) then
  stored = {unpack_doubles(layout, value)}
end
local last = stored[1] or now
local elapsed = (now > last) and (now - last) or 0

-- Pass 1: drain each limit; the first limit the cost exceeds, and the longest wait.
local state = {}
local over, worst, violated = 0, 0, 0
for i = 1, count do
  local limit, window, burst = tonumber(ARGV[3 * i + 2]), tonumber(ARGV[3 * i + 3]), tonumber(ARGV[3 * i + 4])
  local v, f = stored[2 * i], stored[2 * i + 1]
  local reset = (v and f) and time_to(0, v, f, limit, window) or 0
  if reset > elapsed then
    local q, r = muldivmod(limit, elapsed, window)
    v, f = v - q, f - r
    if f < 0 then
      v, f = v - 1, f + window
    end
    reset = reset - elapsed
  else
    v, f, reset = 0, 0, 0
  end
  state[6 * i - 5], state[6 * i - 4], state[6 * i - 3] = limit, window, burst
  state[6 * i - 2], state[6 * i - 1], state[6 * i] = v, f, reset
  if permits > burst then
    if over == 0 then
      over = i
    end
  else
    local retry = time_to(burst - permits, v, f, limit, window)
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
  local v, f, reset = state[6 * i - 2], state[6 * i - 1], state[6 * i]
  if allowed then
    v = v + permits
    reset = time_to(0, v, f, state[6 * i - 5], state[6 * i - 4])
    values[2 * i], values[2 * i + 1] = v, f
  end
  local remaining = state[6 * i - 3] - v - ((f > 0) and 1 or 0)
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
