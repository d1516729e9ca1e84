-- Lean sliding log, the reference Limiter's sliding-log.lua is measured against (issue 14): a sorted
-- set of the times of admitted permits, ZREMRANGEBYSCORE dropping those out of the window, ZCARD
-- counting the rest, ZADD logging one entry per admitted permit. One limit, no waiting.
--
-- KEYS[1]  sorted set: score = time in microseconds, member = time and count, unique within the key
-- ARGV     permits, limit L, window W in microseconds, burst (unused)
-- Reply    {allowed 1|0, remaining}

local time = redis.call('TIME')
local now = time[1] * 1000000 + time[2]
local permits = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local used = redis.call('ZCARD', KEYS[1])
if used + permits > limit then
  return {0, limit - used}
end
for i = 1, permits do
  redis.call('ZADD', KEYS[1], now, time[1] .. time[2] .. ':' .. (used + i))
end
redis.call('PEXPIRE', KEYS[1], math.ceil(window / 1000))
return {1, limit - used - permits}
