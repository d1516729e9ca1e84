-- fixed-window refund: gives permits back to the current window of every limit, down to 0
-- (docs/algorithms.md). Twin: dev.limiter.FixedWindow#refund. Follows decide.lua and lib.lua, which parse the
-- arguments as for a decision.
--
-- KEYS[1]  string of doubles w<i>, n<i>: the window limit i counts and the permits taken in it (as
--          fixed-window.lua)
-- ARGV[2]  permits to give back, at least 1
-- ARGV[4]  unused
-- Reply    as a decision's: the key's quota after the refund; allowed is always 0 and means nothing
--
-- A window that is not the current one (nor a newer one, should the clock have gone back) has nothing
-- to give back. An absent key, or one with nothing to give back, is left as it is: nothing is written.
-- A key whole again after the refund is deleted, as it is then the same as an absent one.

local stored, layout = stored_doubles(2 * #limits)

local changed = false
local index, used, window_end = {}, {}, {}
for i, l in ipairs(limits) do
  index[i] = divmod(now, l.window)
  used[i] = 0
  local stored_index = stored[2 * i - 1]
  if stored_index and stored_index >= index[i] then
    index[i] = stored_index
    used[i] = stored[2 * i]
  end
  window_end[i] = (index[i] + 1) * l.window - now
  if used[i] > 0 then
    changed = true
    used[i] = math.max(0, used[i] - permits)
  end
end

local remaining, reset, values = {}, {}, {}
local whole = true
for i, l in ipairs(limits) do
  values[#values + 1] = index[i]
  values[#values + 1] = used[i]
  remaining[i] = l.limit - used[i]
  reset[i] = (used[i] > 0) and window_end[i] or 0
  if reset[i] > 0 then
    whole = false
  end
end
if changed then
  if whole then
    redis.call('DEL', KEYS[1])
  else
    store_doubles(layout, values, reset)
  end
end
return reply(false, 0, 0, 0, remaining, reset)
