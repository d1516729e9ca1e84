-- Limit i's current window, from the stored stored_index, stored_used (nil: nothing taken): its
-- index, the permits used in it and window_end, the microseconds until it ends. A clock that went
-- back stands still in the newer window it counted: nothing is forgotten.
-- A calendar window (docs/calendar-windows.md) comes as no number but ARGV[3 * i + 3], the window
-- starts around the application's now, ascending, comma-separated, as Java computed them in the
-- zone (Lua knows no time zones): the index is then the start of the window holding now. Should now
-- fall outside them (clocks more than a day apart), the decision fails rather than count a wrong
-- window. Twin: FixedWindow.index and FixedWindow.end.
local index, used, window_end = nil, 0, nil
if window then
  index = divmod(now, window)
  if stored_index and stored_index >= index then
    index, used = stored_index, stored_used
  end
  window_end = (index + 1) * window - now
else
  local starts, k = {}, 0
  for start in string.gmatch(ARGV[3 * i + 3], '%d+') do
    starts[#starts + 1] = tonumber(start)
  end
  while k < #starts and starts[k + 1] <= now do
    k = k + 1
  end
  if k == 0 or k == #starts then
    error('calendar window of limit ' .. i .. ': time ' .. format('%d', now) .. ' is outside the boundaries the application sent ('
      .. ARGV[3 * i + 3] .. '); the clocks of Redis and the application differ by more than a day')
  end
  index = starts[k]
  if stored_index and stored_index >= index then
    index, used = stored_index, stored_used
    while k < #starts and starts[k + 1] <= index do
      k = k + 1
    end
    if k == #starts then
      error('calendar window of limit ' .. i .. ': the stored window ' .. format('%d', index) .. ' is beyond the boundaries the application sent')
    end
  end
  window_end = starts[k + 1] - now
end
