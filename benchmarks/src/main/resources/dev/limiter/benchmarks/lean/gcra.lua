-- Lean GCRA, the reference Limiter's gcra.lua is measured against (issue 14): the theoretical arrival
-- time in one string (GET, then SET PX), time from Redis TIME, emission interval T = W/L and
-- tolerance B*T. Floating point, one limit, no waiting.
--
-- KEYS[1]  the theoretical arrival time in microseconds; absent: an idle limit
-- ARGV     permits, limit L, window W in microseconds, burst B
-- Reply    {allowed 1|0, remaining}

local time = redis.call('TIME')
local now = time[1] * 1000000 + time[2]
local permits = tonumber(ARGV[1])
local interval = tonumber(ARGV[3]) / tonumber(ARGV[2])
local burst = tonumber(ARGV[4])
local tat = tonumber(redis.call('GET', KEYS[1])) or now
if tat < now then
  tat = now
end
local next_tat = tat + permits * interval
local free_at = next_tat - burst * interval
if free_at > now then
  return {0, 0}
end
redis.call('SET', KEYS[1], next_tat, 'PX', math.max(1, math.ceil((next_tat - now) / 1000)))
return {1, math.floor((now - free_at) / interval)}
