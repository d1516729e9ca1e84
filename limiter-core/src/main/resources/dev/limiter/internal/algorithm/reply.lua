-- The reply (decision-prelude.lua), from the verdict (verdict.lua) and the limits' quotas
-- (report-limit.lua); a limit in debt reports 0 remaining.
return {allowed and 1 or 0, reported, (lowest > 0) and lowest or 0, reset_after, retry_after, violated, wait, reported_reset}
