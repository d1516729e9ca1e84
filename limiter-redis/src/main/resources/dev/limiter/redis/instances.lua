-- instances: the heartbeat by which each application instance announces itself, so that a limit can
-- be shared among the instances alive while Redis fails, and by which an instance that returns to
-- Redis after an outage learns whether every other one has charged what it admitted meanwhile
-- (dev.limiter.redis.InstanceRegistry). One call every heartbeat interval per instance, never per
-- decision; a few more while an instance returns from an outage.
--
-- KEYS[1]  sorted set: member = instance id, score = time (us) until which the instance counts as alive
-- KEYS[2]  sorted set: member = instance id, score = the heartbeat (its number in KEYS[3]) at which it
--          last owed Redis nothing: every permit its failure policy admitted was charged to Redis
-- KEYS[3]  the number of the last heartbeat of any instance: an order no clock can get wrong
-- KEYS[4]  sorted set: member = instance id, score = time (us) of its last heartbeat
--          (all four keys share one hash tag)
-- ARGV[1]  the instance id
-- ARGV[2]  how long (us) an instance counts as alive after its heartbeat; 0 removes it (shutdown)
-- ARGV[3]  now in microseconds, or "" to read Redis TIME
-- ARGV[4]  "1" when this instance owes nothing now, "0" when it holds permits not yet charged
-- ARGV[5]  a heartbeat's number, or "": count the other instances alive that have not said they owe
--          nothing since that heartbeat
-- ARGV[6]  how long (us) without a heartbeat an instance alive counts as silent: cut off from Redis
--          (deciding by its failure policy) or dead; "" or 0 to count none
-- Reply    {instances alive (this one included unless it left), this heartbeat's number, instances of ARGV[5],
--          other instances alive and silent}

local now = tonumber(ARGV[3])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local ttl = tonumber(ARGV[2])
local beat = redis.call('INCR', KEYS[3])
local stamp = string.format('%d', now)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', stamp)
if ttl > 0 then
  redis.call('ZADD', KEYS[1], string.format('%d', now + ttl), ARGV[1])
  redis.call('ZADD', KEYS[4], stamp, ARGV[1])
  if ARGV[4] == '1' then
    redis.call('ZADD', KEYS[2], beat, ARGV[1])
  else
    redis.call('ZREM', KEYS[2], ARGV[1])
  end
else
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('ZREM', KEYS[2], ARGV[1])
  redis.call('ZREM', KEYS[4], ARGV[1])
end
local alive = redis.call('ZRANGE', KEYS[1], 0, -1)
local live = {}
for _, id in ipairs(alive) do
  live[id] = true
end
-- Stamps of instances no longer alive go with them.
for _, id in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
  if not live[id] then
    redis.call('ZREM', KEYS[2], id)
  end
end
local silent = 0
local silentAfter = tonumber(ARGV[6])
local seen = redis.call('ZRANGE', KEYS[4], 0, -1, 'WITHSCORES')
for i = 1, #seen, 2 do
  local id = seen[i]
  if not live[id] then
    redis.call('ZREM', KEYS[4], id)
  elseif id ~= ARGV[1] and silentAfter and silentAfter > 0 and tonumber(seen[i + 1]) < now - silentAfter then
    silent = silent + 1
  end
end
local owing = 0
local since = tonumber(ARGV[5])
if since then
  for _, id in ipairs(alive) do
    if id ~= ARGV[1] then
      local clean = redis.call('ZSCORE', KEYS[2], id)
      if not clean or tonumber(clean) < since then
        owing = owing + 1
      end
    end
  end
end
if #alive > 0 then
  -- The keys live as long as the longest-lived instance: whole milliseconds, rounded up.
  local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
  local ms = string.format('%d', math.floor((tonumber(last[2]) - now + 999) / 1000))
  redis.call('PEXPIRE', KEYS[1], ms)
  redis.call('PEXPIRE', KEYS[3], ms)
  redis.call('PEXPIRE', KEYS[4], ms)
  if redis.call('EXISTS', KEYS[2]) == 1 then
    redis.call('PEXPIRE', KEYS[2], ms)
  end
else
  redis.call('DEL', KEYS[2], KEYS[3], KEYS[4])
end
return {#alive, beat, owing, silent}
