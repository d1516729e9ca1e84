-- sliding-window refund: gives permits back to every limit, taking them from its newest sub-windows
-- first, down to 0 (docs/algorithms.md). Twin: dev.limiter.internal.algorithm.SlidingWindow#refund.
-- Assembled by Scripts from the --@include lines.
--
-- KEYS[1]  hash: field '<i>:<s>' = permits limit i took in its sub-window s, as in sliding-window.lua
-- ARGV[2]  permits to give back, at least 1
-- ARGV[3]  unused
-- ARGV[4]  N, the number of sub-windows (divides every window)
-- Reply    as a decision's: the key's quota after the refund; allowed is always 0 and means nothing
--
-- Only sub-windows that still count (s > j - N, j the current sub-window as a decision finds it) give
-- permits back; a count brought to 0 is deleted, the others are left as they are (a later admitted
-- decision deletes those that left). A key with nothing to give back is left as it is: nothing is
-- written. A key with no counting sub-window left is deleted, the same as an absent one.

--@include decision-prelude.lua

local sub_windows = tonumber(ARGV[4])

--@include sliding-window-counts.lua

local changed = false
local emptied, lowered = {}, {}
for i = 1, count do
  table.sort(live[i], function(a, b) return a[1] < b[1] end)
  -- From the newest sub-window back.
  local left = permits
  local used = 0
  local newest
  for k = #live[i], 1, -1 do
    local sub = live[i][k]
    local n = sub[2]
    if left > 0 then
      changed = true
      local taken = math.min(n, left)
      left = left - taken
      n = n - taken
      if n == 0 then
        emptied[#emptied + 1] = sub[3]
      else
        lowered[#lowered + 1] = sub[3]
        lowered[#lowered + 1] = format('%d', n)
      end
    end
    if n > 0 then
      used = used + n
      newest = newest or sub[1]
    end
  end
  local remaining = tonumber(ARGV[3 * i + 2]) - used
  local reset = newest and ((newest + sub_windows) * size[i] - now) or 0
  --@include report-limit.lua
end
if changed then
  if reset_after == 0 then
    redis.call('DEL', key)
  else
    -- In slices: Lua's unpack takes a few thousand values at most.
    for first = 1, #emptied, 1000 do
      redis.call('HDEL', key, unpack(emptied, first, math.min(first + 999, #emptied)))
    end
    for first = 1, #lowered, 1000 do
      redis.call('HSET', key, unpack(lowered, first, math.min(first + 999, #lowered)))
    end
    --@include ttl.lua
    redis.call('PEXPIRE', key, px)
  end
end
local allowed, wait, retry_after = false, 0, 0
--@include reply.lua
