-- Releases a slot of a concurrency limit (see concurrency-take.lua). Removing the last slot deletes the key.
--
-- KEYS[1]   the key's slots
-- ARGV[1]   slot id to release
-- Reply     {released 1|0}: 0 when the slot was not taken, such as after its lease ran out

return {redis.call('ZREM', KEYS[1], ARGV[1])}
