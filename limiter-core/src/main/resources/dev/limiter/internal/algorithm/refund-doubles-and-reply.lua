-- The end of a refund of a state of doubles (fixed-window, the buckets, gcra): a key that gave
-- something back (changed) is written as doubles-write.lua writes it, or deleted once whole again in
-- every limit (reset_after 0), the same as an absent key; then the reply, whose allowed means nothing.
if changed then
  if reset_after == 0 then
    redis.call('DEL', key)
  else
    --@include doubles-write.lua
  end
end
local allowed, wait, retry_after = false, 0, 0
--@include reply.lua
