-- Limit i's quota: remaining permits in the window, and reset, until it ends (0 with nothing taken);
-- folded into the reply.
local remaining = limit - used
local reset = (used > 0) and window_end or 0
--@include report-limit.lua
