-- The key's TTL, px, for PEXPIRE or SET ... PX: reset_after, until which the state differs from an
-- absent key, in whole milliseconds rounded up, at least 1.
local ms = ceildiv(reset_after, 1000)
local px = format('%d', (ms > 1) and ms or 1)
