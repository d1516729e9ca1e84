-- probe: whether a call like the one that failed would reach Redis again. Touches nothing.
-- RedisAvailability runs it while limiters follow their failure policy, declaring the key of the
-- call that failed, so that it travels as that call did: a script, to the master of the same slot
-- in a Redis Cluster, over the same connection, needing the same permissions.
--
-- KEYS[1]  the key of the call that failed; neither read nor written
-- Reply    1
return 1
