-- instances: the heartbeat by which each application instance announces itself, so that a limit can
-- be shared among the instances alive while Redis fails (dev.limiter.InstanceRegistry). One call every
-- heartbeat interval per instance, never per decision.
--
-- KEYS[1]  sorted set: member = instance id, score = time (us) until which the instance counts as alive
-- ARGV[1]  the instance id
-- ARGV[2]  how long (us) an instance counts as alive after its heartbeat; 0 removes it (shutdown)
-- ARGV[3]  now in microseconds, or "" to read Redis TIME
-- Reply    the number of instances alive, this one included unless it left

local now = tonumber(ARGV[3])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local ttl = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('%d', now))
if ttl > 0 then
  redis.call('ZADD', KEYS[1], string.format('%d', now + ttl), ARGV[1])
else
  redis.call('ZREM', KEYS[1], ARGV[1])
end
local alive = redis.call('ZCARD', KEYS[1])
if alive > 0 then
  -- The set lives as long as its longest-lived member: whole milliseconds, rounded up.
  local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
  redis.call('PEXPIRE', KEYS[1], math.floor((tonumber(last[2]) - now + 999) / 1000))
end
return alive
