-- Limit i of a decision: its bucket drained to now, and the wait for the permits folded into the
-- verdict (the cost is over the capacity when above the burst).
--@include leaky-bucket-drain.lua
local retry = (permits > burst) and -1 or time_to(burst - permits, v, f, limit, window)
--@include verdict-limit.lua
