-- The end of a decision on several limits whose state is a string of doubles (fixed-window, the
-- buckets, gcra): an admitted request writes values as doubles-write.lua does; then the reply.
if allowed then
  --@include doubles-write.lua
end
--@include reply.lua
