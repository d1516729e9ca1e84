-- leaky-bucket: capacity B whose level drains continuously at L/W per microsecond (docs/algorithms.md).
-- Twin: dev.limiter.LeakyBucket. Follows lib.lua, which parses the arguments.
--
-- KEYS[1]  hash: v<i> = whole permits in limit i's bucket, f<i> = the fraction over W (0 <= f < W),
--          so the level is v + f/W (above B: debt taken by waiting callers); t = time of the last
--          change. An absent key is an empty bucket.
-- ARGV[4]  unused

-- ceil(((v - k) * W + f) / L): microseconds until the level is down to k (0 if it is).
local function time_to(k, v, f, l)
  if v < k then
    return 0
  end
  local q, r = muldivmod(v - k, l.window, l.limit)
  return q + ceildiv(r + f, l.limit)
end

local fields = {'t'}
for i = 1, #limits do
  fields[#fields + 1] = 'v' .. i
  fields[#fields + 1] = 'f' .. i
end
local stored = redis.call('HMGET', KEYS[1], unpack(fields))
local last = tonumber(stored[1]) or now
local elapsed = math.max(0, now - last)

local capacity, retry, v, f = {}, {}, {}, {}
for i, l in ipairs(limits) do
  v[i] = tonumber(stored[2 * i])
  f[i] = tonumber(stored[2 * i + 1])
  -- Comparing with the time to empty first keeps elapsed, and so the product below, bounded.
  if not v[i] or not f[i] or elapsed >= time_to(0, v[i], f[i], l) then
    v[i], f[i] = 0, 0
  else
    -- Drain elapsed * L / W permits, exactly; the level stays above 0.
    local q, r = muldivmod(l.limit, elapsed, l.window)
    local borrow
    borrow, f[i] = divmod(f[i] - r, l.window)
    v[i] = v[i] - q + borrow
  end
  capacity[i] = l.burst
  -- A cost above the burst is never admitted (decide says so); its retry is not needed.
  retry[i] = (permits <= l.burst) and time_to(l.burst - permits, v[i], f[i], l) or 0
end

local allowed, wait, violated, retry_after = decide(capacity, retry)
local remaining, reset, values = {}, {}, {'t', string.format('%d', math.max(now, last))}
for i, l in ipairs(limits) do
  if allowed then
    v[i] = v[i] + permits
    values[#values + 1] = 'v' .. i
    values[#values + 1] = string.format('%d', v[i])
    values[#values + 1] = 'f' .. i
    values[#values + 1] = string.format('%d', f[i])
  end
  -- floor(B - v - f/W); below 0 while callers wait.
  remaining[i] = l.burst - v[i] - ((f[i] > 0) and 1 or 0)
  reset[i] = time_to(0, v[i], f[i], l)
end
if allowed then
  redis.call('HSET', KEYS[1], unpack(values))
  expire(reset)
end
return reply(allowed, wait, violated, retry_after, remaining, reset)
