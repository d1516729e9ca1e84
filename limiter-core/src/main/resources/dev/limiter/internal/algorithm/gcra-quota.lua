-- Limit i's quota from its arrival time a + f/L: remaining floor(B - (tau - at) / T) =
-- B - ceil(((a - at) * L + f) / W), below 0 while callers wait, and reset, until tau; folded into the
-- reply.
local q, r = muldivmod(limit, a - at, window)
local remaining = burst - q - ceildiv(r + f, window)
local reset = a - at + ((f > 0) and 1 or 0)
--@include report-limit.lua
