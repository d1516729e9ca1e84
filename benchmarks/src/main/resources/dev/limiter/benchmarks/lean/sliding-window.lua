-- Lean sliding window, the reference Limiter's sliding-window.lua is measured against (issue 14): two
-- counters, the current epoch-aligned window's and the previous one's, the previous weighted by the
-- share of it still inside the sliding window. Floating point, one limit, no waiting.
--
-- KEYS[1]  hash: i = index of the current window, c = its count, p = the previous window's count
-- ARGV     permits, limit L, window W in microseconds, burst (unused)
-- Reply    {allowed 1|0, remaining}

local time = redis.call('TIME')
local now = time[1] * 1000000 + time[2]
local permits = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local index = math.floor(now / window)
local stored = redis.call('HMGET', KEYS[1], 'i', 'c', 'p')
local stored_index = tonumber(stored[1])
local current, previous = 0, 0
if stored_index == index then
  current, previous = tonumber(stored[2]), tonumber(stored[3])
elseif stored_index == index - 1 then
  previous = tonumber(stored[2])
end
local used = previous * (1 - (now - index * window) / window) + current
if used + permits > limit then
  return {0, math.max(0, math.floor(limit - used))}
end
redis.call('HSET', KEYS[1], 'i', index, 'c', current + permits, 'p', previous)
redis.call('PEXPIRE', KEYS[1], math.ceil(2 * window / 1000))
return {1, math.floor(limit - used - permits)}
