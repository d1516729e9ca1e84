-- Limit i's remaining permits, floor(B - v - f/W); below 0 while callers wait. Folded into the reply.
local remaining = burst - v - ((f > 0) and 1 or 0)
--@include report-limit.lua
