-- Takes a waiter's ticket out of a concurrency limit's queue (see concurrency-take.lua): its acquire ended
-- without a slot, so the waiters behind it move up at once, not only when its ticket's lease runs out.
--
-- KEYS[1]   the key's waiters' tickets by arrival
-- KEYS[2]   the key's waiters' tickets by lease
-- ARGV[1]   the ticket
-- Reply     {removed 1|0}

redis.call('ZREM', KEYS[2], ARGV[1])
return {redis.call('ZREM', KEYS[1], ARGV[1])}
