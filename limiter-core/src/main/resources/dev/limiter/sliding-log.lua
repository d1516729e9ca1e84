-- sliding-log: not implemented yet
return redis.error_reply('sliding-log is not implemented yet')
