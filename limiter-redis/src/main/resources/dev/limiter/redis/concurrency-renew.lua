-- Renews the lease of an instance's slots of one key (see concurrency-take.lua): only slots still in the
-- set, never one whose lease ran out and that was dropped, since another call may hold its place by now.
--
-- KEYS[1]   the key's slots
-- ARGV[1]   now in microseconds, or "" to read Redis TIME
-- ARGV[2]   lease in microseconds
-- ARGV[3..] slot ids to renew
-- Reply     {slots renewed}

--@include now.lua
local key = KEYS[1]
local expiry = now + tonumber(ARGV[2])
local renewed = 0
for i = 3, #ARGV do
  renewed = renewed + redis.call('ZADD', key, 'XX', 'CH', expiry, ARGV[i])
end
if renewed > 0 then
  local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  redis.call('PEXPIRE', key, math.ceil((tonumber(last[2]) - now) / 1000))
end
return {renewed}
