#!lua
-- probe: whether a decision like the one that failed could succeed again. Touches nothing.
-- RedisAvailability runs it while limiters follow their failure policy, declaring the key of the
-- call that failed, so that it travels as that call did: a script, to the master of the same slot
-- in a Redis Cluster, over the same connection, needing the same permissions. The shebang line
-- without the no-writes flag declares a script that may write, as every decision script may: so
-- Redis refuses it, as it refuses decisions, while it is out of memory (OOM), a read-only replica
-- (READONLY) or unable to persist (MISCONF), though it writes nothing.
--
-- KEYS[1]  the key of the call that failed; neither read nor written
-- Reply    1
return 1
