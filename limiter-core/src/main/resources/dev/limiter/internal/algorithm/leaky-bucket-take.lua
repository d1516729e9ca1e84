-- Limit i once the verdict is in: an admitted request pours its permits in (above B: debt of
-- waiting callers); its quota folded into the reply.
if allowed then
  v = v + permits
  reset = time_to(0, v, f, limit, window)
end
--@include leaky-bucket-quota.lua
