-- Takes a slot of a concurrency limit, first come first served (RedisConcurrencyLimiter; twin:
-- InMemoryConcurrencyLimiter). The key's slots are a sorted set: member = slot id (instance id and counter,
-- unique), score = when the slot's lease runs out, in microseconds. Slots whose lease ran out are dropped
-- first: their holders died or stopped renewing.
--
-- Waiters queue: a waiter's ticket is in KEYS[2], scored by arrival (Redis time, made strictly increasing so
-- the order is total), and in KEYS[3], scored by when the ticket's lease runs out. Each attempt renews the
-- ticket's lease; tickets whose lease ran out (waiters that died or stopped polling) are dropped first.
-- A caller at rank r of the queue (a newcomer, with or without a ticket, ranks after every live ticket)
-- takes a slot only when r < limit - slots taken: a slot is never taken from a waiter ahead.
--
-- KEYS[1]   the key's slots
-- KEYS[2]   its waiters' tickets by arrival
-- KEYS[3]   its waiters' tickets by lease
-- ARGV[1]   now in microseconds, or "" to read Redis TIME
-- ARGV[2]   slot id to take
-- ARGV[3]   limit: most slots taken at once
-- ARGV[4]   lease in microseconds
-- ARGV[5]   the caller's ticket, to queue with when no slot is due to it; "" never to queue (tryAcquire)
-- ARGV[6]   ticket lease in microseconds
-- Reply     {taken 1|0, slots taken after this call}
--
-- Every key expires with its longest lease (PEXPIRE, whole milliseconds rounded up), so a key whose every
-- holder or waiter died leaves nothing behind; an emptied sorted set is deleted by Redis.

--@include now.lua
local slots, queue, tickets = KEYS[1], KEYS[2], KEYS[3]
local ticket = ARGV[5]
redis.call('ZREMRANGEBYSCORE', slots, '-inf', now)
local gone = redis.call('ZRANGEBYSCORE', tickets, '-inf', now)
for i = 1, #gone do
  redis.call('ZREM', queue, gone[i])
end
redis.call('ZREMRANGEBYSCORE', tickets, '-inf', now)
local taken = redis.call('ZCARD', slots)
local rank = nil
if ticket ~= '' then
  rank = redis.call('ZRANK', queue, ticket)
end
if not rank then
  rank = redis.call('ZCARD', queue)
end
if rank < tonumber(ARGV[3]) - taken then
  redis.call('ZADD', slots, now + tonumber(ARGV[4]), ARGV[2])
  local last = redis.call('ZRANGE', slots, -1, -1, 'WITHSCORES')
  redis.call('PEXPIRE', slots, math.ceil((tonumber(last[2]) - now) / 1000))
  if ticket ~= '' then
    redis.call('ZREM', queue, ticket)
    redis.call('ZREM', tickets, ticket)
  end
  return {1, taken + 1}
end
if ticket ~= '' then
  if not redis.call('ZSCORE', queue, ticket) then
    -- Arrival: now, or just after the last one queued if that is not earlier (a counter at the same microsecond).
    local arrival = now
    local last = redis.call('ZRANGE', queue, -1, -1, 'WITHSCORES')
    if last[2] and tonumber(last[2]) >= arrival then
      arrival = tonumber(last[2]) + 1
    end
    -- %.0f: the exact integer; Lua's default number format keeps 14 digits only.
    redis.call('ZADD', queue, string.format('%.0f', arrival), ticket)
  end
  redis.call('ZADD', tickets, string.format('%.0f', now + tonumber(ARGV[6])), ticket)
  local longest = redis.call('ZRANGE', tickets, -1, -1, 'WITHSCORES')
  local ttl = math.ceil((tonumber(longest[2]) - now) / 1000)
  redis.call('PEXPIRE', queue, ttl)
  redis.call('PEXPIRE', tickets, ttl)
end
return {0, taken}
