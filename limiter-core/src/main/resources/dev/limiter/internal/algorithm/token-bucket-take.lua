-- Limit i once the verdict is in: an admitted request takes its permits (below 0: debt of waiting
-- callers); its quota folded into the reply.
if allowed then
  x = x - permits
  reset = time_to(burst, x, f, limit, window)
end
local remaining = x
--@include report-limit.lua
