-- token-bucket refund: puts permits back into every limit's bucket, refilled to now first as a
-- decision refills it, up to the burst (docs/algorithms.md). Twin:
-- dev.limiter.internal.algorithm.TokenBucket#refund. Assembled by Scripts from the --@include lines.
--
-- KEYS[1]  string of doubles t, x<i>, f<i> as in token-bucket.lua
-- ARGV[2]  tokens to give back, at least 1
-- ARGV[3]  unused
-- ARGV[4]  unused
-- Reply    as a decision's: the key's quota after the refund; allowed is always 0 and means nothing
--
-- An absent key (a full bucket), or one whose buckets are full again by now, is left as it is: nothing
-- is written. A key whose buckets are all full after the refund is deleted, the same as an absent one.

--@include decision-prelude.lua
--@include token-bucket-time-to.lua

local doubles = 1 + 2 * count
--@include doubles-read.lua
local last = stored[1] or now
local elapsed = (now > last) and (now - last) or 0

local changed = false
local values = {(now > last) and now or last}
for i = 1, count do
  local limit, window, burst = tonumber(ARGV[3 * i + 2]), tonumber(ARGV[3 * i + 3]), tonumber(ARGV[3 * i + 4])
  local x, f = stored[2 * i], stored[2 * i + 1]
  --@include token-bucket-refill.lua
  if reset > 0 then
    changed = true
    -- x + f/W + permits, but never above B (compared first: permits may be any size).
    if permits >= burst - x then
      x, f = burst, 0
    else
      x = x + permits
    end
    reset = time_to(burst, x, f, limit, window)
  end
  values[2 * i], values[2 * i + 1] = x, f
  local remaining = x
  --@include report-limit.lua
end
--@include refund-doubles-and-reply.lua
