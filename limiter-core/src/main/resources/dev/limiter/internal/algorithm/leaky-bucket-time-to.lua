-- ceil(((v - k) * W + f) / L): microseconds until the level is down to k (0 if it is).
local function time_to(k, v, f, limit, window)
  if v < k then
    return 0
  end
  local q, r = muldivmod(v - k, window, limit)
  return q + ceildiv(r + f, limit)
end
