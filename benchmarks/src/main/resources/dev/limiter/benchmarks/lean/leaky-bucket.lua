-- Lean leaky bucket, the reference Limiter's leaky-bucket.lua is measured against (issue 14): the
-- level and the time of the last change in a hash (HMGET, HSET, PEXPIRE), time from Redis TIME,
-- drained at L/W per microsecond, admitting while the level stays within the burst B. Floating
-- point, one limit, no waiting.
--
-- KEYS[1]  hash: v = level, t = time of the last change in microseconds; absent: an empty bucket
-- ARGV     permits, limit L, window W in microseconds, burst B
-- Reply    {allowed 1|0, remaining}

local time = redis.call('TIME')
local now = time[1] * 1000000 + time[2]
local permits = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local burst = tonumber(ARGV[4])
local stored = redis.call('HMGET', KEYS[1], 'v', 't')
local level = tonumber(stored[1])
if level then
  level = math.max(0, level - math.max(0, now - tonumber(stored[2])) * limit / window)
else
  level = 0
end
if level + permits > burst then
  return {0, math.max(0, math.floor(burst - level))}
end
level = level + permits
redis.call('HSET', KEYS[1], 'v', level, 't', now)
redis.call('PEXPIRE', KEYS[1], math.max(1, math.ceil(level * window / limit / 1000)))
return {1, math.floor(burst - level)}
