-- Lean token bucket, the reference Limiter's token-bucket.lua is measured against (issue 14):
-- tokens and the time of the last change in a hash (HMGET, HSET, PEXPIRE), time from Redis TIME,
-- refilled at L/W per microsecond up to the burst B. Floating point, one limit, no waiting.
--
-- KEYS[1]  hash: n = tokens, t = time of the last change in microseconds; absent: a full bucket
-- ARGV     permits, limit L, window W in microseconds, burst B
-- Reply    {allowed 1|0, remaining}

local time = redis.call('TIME')
local now = time[1] * 1000000 + time[2]
local permits = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local burst = tonumber(ARGV[4])
local stored = redis.call('HMGET', KEYS[1], 'n', 't')
local tokens = tonumber(stored[1])
if tokens then
  tokens = math.min(burst, tokens + math.max(0, now - tonumber(stored[2])) * limit / window)
else
  tokens = burst
end
if tokens < permits then
  return {0, math.floor(tokens)}
end
tokens = tokens - permits
redis.call('HSET', KEYS[1], 'n', tokens, 't', now)
redis.call('PEXPIRE', KEYS[1], math.max(1, math.ceil((burst - tokens) * window / limit / 1000)))
return {1, math.floor(tokens)}
