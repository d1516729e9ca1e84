-- Lean fixed window with epoch-aligned windows, the second reference Limiter's fixed-window.lua is
-- measured against (docs/script-costs.md): like lean/fixed-window.lua one counter that INCRBY counts,
-- but its windows are aligned to the epoch as Limiter's are, so it reads Redis TIME and ends the
-- counter at its window's end (PEXPIREAT on the first permit). Rejected permits are counted too.
-- Floating point, one limit, no waiting.
--
-- KEYS[1]  the counter of the current window
-- ARGV     permits, limit L, window W in microseconds, burst (unused)
-- Reply    {allowed 1|0, remaining}

local time = redis.call('TIME')
local now = time[1] * 1000000 + time[2]
local permits = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local used = redis.call('INCRBY', KEYS[1], permits)
if used == permits then
  redis.call('PEXPIREAT', KEYS[1], math.ceil((math.floor(now / window) + 1) * window / 1000))
end
if used <= limit then
  return {1, limit - used}
end
return {0, 0}
