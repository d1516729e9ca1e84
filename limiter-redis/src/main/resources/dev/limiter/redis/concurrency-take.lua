-- Takes a slot of a concurrency limit (RedisConcurrencyLimiter; twin: InMemoryConcurrencyLimiter).
-- The key's slots are a sorted set: member = slot id (instance id and counter, unique), score = when the
-- slot's lease runs out, in microseconds. Slots whose lease ran out are dropped first: their holders died
-- or stopped renewing.
--
-- KEYS[1]   the key's slots
-- ARGV[1]   now in microseconds, or "" to read Redis TIME
-- ARGV[2]   slot id to take
-- ARGV[3]   limit: most slots taken at once
-- ARGV[4]   lease in microseconds
-- Reply     {taken 1|0, slots taken after this call}
--
-- The set expires with its longest lease (PEXPIRE, whole milliseconds rounded up), so a key whose every
-- holder died leaves nothing behind.

--@include now.lua
local key = KEYS[1]
redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
local taken = redis.call('ZCARD', key)
if taken >= tonumber(ARGV[3]) then
  return {0, taken}
end
redis.call('ZADD', key, now + tonumber(ARGV[4]), ARGV[2])
local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
redis.call('PEXPIRE', key, math.ceil((tonumber(last[2]) - now) / 1000))
return {1, taken + 1}
