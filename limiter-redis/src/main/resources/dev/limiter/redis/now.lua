-- now: the time in microseconds since the epoch, ARGV[1] (a test's clock), or Redis TIME when ARGV[1] is "".
-- Included by the scripts whose ARGV[1] is the time.
local now
if ARGV[1] == '' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
else
  now = tonumber(ARGV[1])
end
