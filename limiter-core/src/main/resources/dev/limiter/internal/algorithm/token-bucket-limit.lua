-- Limit i of a decision: its bucket refilled to now, and the wait for the permits folded into the
-- verdict (the cost is over the capacity when above the burst).
--@include token-bucket-refill.lua
local retry = (permits > burst) and -1 or time_to(permits, x, f, limit, window)
--@include verdict-limit.lua
