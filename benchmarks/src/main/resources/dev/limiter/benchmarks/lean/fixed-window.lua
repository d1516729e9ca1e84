-- Lean fixed window, the reference Limiter's fixed-window.lua is measured against (issue 14): one
-- counter that INCRBY counts and PEXPIRE ends, its window starting at its first permit (not aligned
-- to the epoch); rejected permits are counted too. Floating point, one limit, no waiting.
--
-- KEYS[1]  the counter
-- ARGV     permits, limit L, window W in microseconds, burst (unused)
-- Reply    {allowed 1|0, remaining}

local permits = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local used = redis.call('INCRBY', KEYS[1], permits)
if used == permits then
  redis.call('PEXPIRE', KEYS[1], math.ceil(ARGV[3] / 1000))
end
if used <= limit then
  return {1, limit - used}
end
return {0, 0}
