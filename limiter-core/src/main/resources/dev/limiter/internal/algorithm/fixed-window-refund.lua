-- fixed-window refund: gives permits back to the current window of every limit, down to 0
-- (docs/algorithms.md). Twin: dev.limiter.internal.algorithm.FixedWindow#refund. Assembled by Scripts
-- from the --@include lines.
--
-- KEYS[1]  string of doubles w<i>, n<i>: the window limit i counts and the permits taken in it (as
--          fixed-window.lua)
-- ARGV[2]  permits to give back, at least 1
-- ARGV[3]  unused
-- ARGV[4]  unused
-- Reply    as a decision's: the key's quota after the refund; allowed is always 0 and means nothing
--
-- A window that is not the current one (nor a newer one, should the clock have gone back) has nothing
-- to give back. An absent key, or one with nothing to give back, is left as it is: nothing is written.
-- A key whole again after the refund is deleted, as it is then the same as an absent one.

--@include decision-prelude.lua

local doubles = 2 * count
--@include doubles-read.lua

local changed = false
local values = {}
for i = 1, count do
  local limit, window = tonumber(ARGV[3 * i + 2]), tonumber(ARGV[3 * i + 3])
  local stored_index, stored_used = stored[2 * i - 1], stored[2 * i]
  --@include fixed-window-current.lua
  if used > 0 then
    changed = true
    used = (used > permits) and (used - permits) or 0
  end
  values[2 * i - 1], values[2 * i] = index, used
  --@include fixed-window-quota.lua
end
--@include refund-doubles-and-reply.lua
