-- sliding-window: not implemented yet
return redis.error_reply('sliding-window is not implemented yet')
