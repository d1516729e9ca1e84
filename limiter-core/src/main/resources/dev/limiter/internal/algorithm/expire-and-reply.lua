-- The end of a decision that keeps its state in a hash or a sorted set (sliding-window, sliding-log),
-- once its commands have written it: an admitted request's key kept as ttl.lua says; then the reply.
if allowed then
  --@include ttl.lua
  redis.call('PEXPIRE', key, px)
end
--@include reply.lua
