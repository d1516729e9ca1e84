-- Limit i of a decision: its current window, and the wait for the permits (until the window ends,
-- unless they fit) folded into the verdict (the cost is over the capacity when above the limit).
--@include fixed-window-current.lua
local retry = (permits > limit) and -1 or ((used + permits <= limit) and 0 or window_end)
--@include verdict-limit.lua
