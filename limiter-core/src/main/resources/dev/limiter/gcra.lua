-- gcra: not implemented yet
return redis.error_reply('gcra is not implemented yet')
