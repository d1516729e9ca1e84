-- ceil(((k - x) * W - f) / L): microseconds until the bucket holds k tokens (0 if it does).
local function time_to(k, x, f, limit, window)
  if x >= k then
    return 0
  end
  local q, r = muldivmod(k - x, window, limit)
  return q + ceildiv(r - f, limit)
end
