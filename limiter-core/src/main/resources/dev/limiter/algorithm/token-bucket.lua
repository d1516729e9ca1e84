-- token-bucket: capacity B refilled continuously at L/W per microsecond (docs/algorithms.md).
-- Twin: dev.limiter.TokenBucket. Follows lib.lua, which parses the arguments.
--
-- KEYS[1]  hash: x<i> = whole tokens of limit i, f<i> = the fraction over W (0 <= f < W), so the
--          bucket holds x + f/W tokens (x < 0: debt taken by waiting callers); t = time of the
--          last change. An absent key is a full bucket.
-- ARGV[4]  unused

-- ceil(((k - x) * W - f) / L): microseconds until the bucket holds k tokens (0 if it does).
local function time_to(k, x, f, l)
  if x >= k then
    return 0
  end
  local q, r = muldivmod(k - x, l.window, l.limit)
  return q + ceildiv(r - f, l.limit)
end

local fields = {'t'}
for i = 1, #limits do
  fields[#fields + 1] = 'x' .. i
  fields[#fields + 1] = 'f' .. i
end
local stored = redis.call('HMGET', KEYS[1], unpack(fields))
local last = tonumber(stored[1]) or now
local elapsed = math.max(0, now - last)

local capacity, retry, x, f = {}, {}, {}, {}
for i, l in ipairs(limits) do
  x[i] = tonumber(stored[2 * i])
  f[i] = tonumber(stored[2 * i + 1])
  if not x[i] or not f[i] or elapsed >= time_to(l.burst, x[i], f[i], l) then
    x[i], f[i] = l.burst, 0
  else
    -- Refill elapsed * L / W tokens, exactly.
    local q, r = muldivmod(l.limit, elapsed, l.window)
    local carry
    carry, f[i] = divmod(f[i] + r, l.window)
    x[i] = x[i] + q + carry
  end
  capacity[i] = l.burst
  -- A cost above the burst is never admitted (decide says so): no retry to compute, and muldivmod
  -- stays inside its range.
  retry[i] = (permits <= l.burst) and time_to(permits, x[i], f[i], l) or 0
end

local allowed, wait, violated, retry_after = decide(capacity, retry)
local remaining, reset, values = {}, {}, {'t', string.format('%d', math.max(now, last))}
for i, l in ipairs(limits) do
  if allowed then
    x[i] = x[i] - permits
    values[#values + 1] = 'x' .. i
    values[#values + 1] = string.format('%d', x[i])
    values[#values + 1] = 'f' .. i
    values[#values + 1] = string.format('%d', f[i])
  end
  remaining[i] = x[i]
  reset[i] = time_to(l.burst, x[i], f[i], l)
end
if allowed then
  redis.call('HSET', KEYS[1], unpack(values))
  expire(reset)
end
return reply(allowed, wait, violated, retry_after, remaining, reset)
