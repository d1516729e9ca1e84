-- outer
if x then
  --@include inner.lua
end
--@include /dev/limiter/internal/algorithm/assembly/{algorithm}.lua
return x
