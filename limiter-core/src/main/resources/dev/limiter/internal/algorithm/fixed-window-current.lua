-- Limit i's current window, from the stored stored_index, stored_used (nil: nothing taken): its
-- index, the permits used in it and window_end, the microseconds until it ends. A clock that went
-- back stands still in the newer window it counted: nothing is forgotten.
local index, used = divmod(now, window), 0
if stored_index and stored_index >= index then
  index, used = stored_index, stored_used
end
local window_end = (index + 1) * window - now
