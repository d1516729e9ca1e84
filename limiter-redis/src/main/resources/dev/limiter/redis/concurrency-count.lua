-- Counts the slots of a concurrency limit taken now, their leases not run out, without taking, dropping or
-- renewing any (RedisConcurrencyLimiter#inFlight; twin: InMemoryConcurrencyLimiter#inFlight). Read only.
--
-- KEYS[1]   the key's slots, as in concurrency-take.lua
-- ARGV[1]   now in microseconds, or "" to read Redis TIME
-- Reply     {slots taken now}

--@include now.lua
-- %.0f: the exact integer; Lua's default number format keeps 14 digits only.
return {redis.call('ZCOUNT', KEYS[1], string.format('(%.0f', now), '+inf')}
