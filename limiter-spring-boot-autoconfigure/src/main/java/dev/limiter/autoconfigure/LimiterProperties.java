package dev.limiter.autoconfigure;

import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.limiter.Algorithm;
import dev.limiter.CalendarWindow;
import dev.limiter.FailurePolicy;
import dev.limiter.RetunePolicy;
import dev.limiter.spring.web.ClientIpResolver.ForwardedHeader;
import dev.limiter.spring.MissingKeyPolicy;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of Limiter, under the prefix {@code limiter}.
 */
@ConfigurationProperties("limiter")
public class LimiterProperties {

    /**
     * Whether rate limiting is enabled. When false, @RateLimited methods run unlimited.
     */
    private boolean enabled = true;

    /**
     * Where limiter state lives. 'auto' uses Redis when a RedisConnectionFactory exists and memory
     * otherwise.
     */
    private Backend backend = Backend.AUTO;

    /**
     * Prefix of every Redis key Limiter writes. Must not contain '{' or '}'.
     */
    private String keyPrefix = "limiter";

    /**
     * Limiters by name. Values given here override those of @RateLimited annotations with the same
     * name.
     */
    private Map<String, Limiter> limiters = new LinkedHashMap<>();

    /**
     * Limits of calls in flight by name: a @RateLimited method naming one holds a slot of its key
     * while each call runs. Names must differ from those of limiter.limiters.
     */
    private Map<String, ConcurrencyLimit> concurrencyLimits = new LinkedHashMap<>();

    /**
     * Rules limiting HTTP requests by path, without an annotation (Spring MVC and WebFlux). Every
     * rule matching a request applies, in this order, each as its own decision; the first rejection
     * answers the request.
     */
    private List<Rule> rules = new ArrayList<>();

    /**
     * Order of the filter applying limiter.rules, among the servlet filters (Spring MVC) or the web
     * filters (WebFlux). The default runs it just after Spring Security's filter (-100), so that
     * #principal is the authenticated user.
     */
    private int ruleFilterOrder = -90;

    private final Memory memory = new Memory();

    /**
     * What limiters decide while Redis fails or is too slow: 'local' (this instance's share of what
     * Redis last said of each key, each limit divided among the instances alive), 'allow' (fail open)
     * or 'deny' (fail closed).
     */
    private FailurePolicy onRedisFailure = FailurePolicy.LOCAL;

    private final Redis redis = new Redis();

    private final Headers headers = new Headers();

    private final LocalDenyCache localDenyCache = new LocalDenyCache();

    private final ClientIp clientIp = new ClientIp();

    private final Endpoint endpoint = new Endpoint();

    /**
     * What happens when a key expression yields null or empty text: 'reject' (the call fails, 400
     * over HTTP), 'skip' (not limited) or 'shared' (one key for all such calls).
     */
    private MissingKeyPolicy onMissingKey = MissingKeyPolicy.REJECT;

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Backend getBackend() {
        return backend;
    }

    public void setBackend(Backend backend) {
        this.backend = backend;
    }

    public String getKeyPrefix() {
        return keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
        this.keyPrefix = keyPrefix;
    }

    public Map<String, ConcurrencyLimit> getConcurrencyLimits() {
        return concurrencyLimits;
    }

    public void setConcurrencyLimits(Map<String, ConcurrencyLimit> concurrencyLimits) {
        this.concurrencyLimits = concurrencyLimits;
    }

    public Map<String, Limiter> getLimiters() {
        return limiters;
    }

    public void setLimiters(Map<String, Limiter> limiters) {
        this.limiters = limiters;
    }

    public List<Rule> getRules() {
        return rules;
    }

    public void setRules(List<Rule> rules) {
        this.rules = rules;
    }

    public int getRuleFilterOrder() {
        return ruleFilterOrder;
    }

    public void setRuleFilterOrder(int ruleFilterOrder) {
        this.ruleFilterOrder = ruleFilterOrder;
    }

    public Memory getMemory() {
        return memory;
    }

    public FailurePolicy getOnRedisFailure() {
        return onRedisFailure;
    }

    public void setOnRedisFailure(FailurePolicy onRedisFailure) {
        this.onRedisFailure = onRedisFailure;
    }

    public Redis getRedis() {
        return redis;
    }

    public Headers getHeaders() {
        return headers;
    }

    public ClientIp getClientIp() {
        return clientIp;
    }

    public LocalDenyCache getLocalDenyCache() {
        return localDenyCache;
    }

    public Endpoint getEndpoint() {
        return endpoint;
    }

    public MissingKeyPolicy getOnMissingKey() {
        return onMissingKey;
    }

    public void setOnMissingKey(MissingKeyPolicy onMissingKey) {
        this.onMissingKey = onMissingKey;
    }

    /** Where limiter state lives. */
    public enum Backend {

        /** Redis when a RedisConnectionFactory exists, memory otherwise. */
        AUTO,

        /** Redis; startup fails without a RedisConnectionFactory. */
        REDIS,

        /** This process only: each instance limits on its own. */
        MEMORY

    }

    /** One named limiter. Unset values come from the @RateLimited annotation with this name. */
    public static class Limiter extends Limit {

        /**
         * Algorithm deciding. Defaults to the annotation's, else token-bucket.
         */
        private @Nullable Algorithm algorithm;

        /**
         * Several limits checked together, instead of limit, window and burst; a call passes only if
         * every limit admits it. A shorter window needs a smaller limit.
         */
        private List<Limit> limits = new ArrayList<>();

        /**
         * Sub-windows per window of the sliding-window algorithm; each must divide the window into
         * whole microseconds. Defaults to 10.
         */
        private @Nullable Integer subWindows;

        /**
         * Time zone of calendar windows (fixed-window only), such as Europe/Berlin or UTC: with it,
         * a window of 1d, 1w or 1mo starts at midnight of this zone (weeks on Monday), and lasts
         * the 23 or 25 hours of a daylight-saving change, or the days of its month.
         */
        private @Nullable ZoneId zone;

        /**
         * Day of the month a 1mo calendar window starts on, 1 to 31 (in a shorter month, its last
         * day), such as a billing day. Defaults to 1.
         */
        private @Nullable Integer anchorDay;

        /**
         * How long a call may wait for its permits instead of being rejected (token-bucket,
         * leaky-bucket, gcra). Defaults to not waiting.
         */
        private @Nullable Duration maxWait;

        /**
         * Local leasing of hot keys' permits (Redis backend; token-bucket, leaky-bucket, gcra): an
         * instance reserves a few permits of a key it decides often in the same call and hands them
         * out without asking Redis. Off unless permits and ttl are set.
         */
        private Lease lease = new Lease();

        /**
         * What this limiter decides while Redis fails. Defaults to limiter.on-redis-failure.
         */
        private @Nullable FailurePolicy onRedisFailure;

        /**
         * What becomes of each key's state when this limiter is retuned while the application runs:
         * 'reset' (every key starts fresh) or 'keep' (each key continues from its used permits, tokens
         * or level while the algorithm, windows and sub-windows stay the same). It also names the
         * keys in Redis, so keys start fresh once when it changes. Defaults to reset.
         */
        private @Nullable RetunePolicy onRetune;

        /**
         * Whether this limiter only observes: decisions are made and permits taken, but rejected
         * calls proceed (logged at DEBUG). Defaults to the annotation's shadow attribute.
         */
        private @Nullable Boolean shadow;

        /**
         * Plans by name, each with its own limits (limit, window and burst, or limits) or unlimited,
         * instead of the limiter's own limits. A call is limited by the plan that 'plan',
         * 'plan-resolver' or 'default-plan' picks; each plan counts apart, so a key moving to another
         * plan starts afresh there.
         */
        private Map<String, Plan> plans = new LinkedHashMap<>();

        /**
         * SpEL expression picking the plan of a call, with the variables of a key expression: the
         * method's parameters, #request, #principal, #clientIp. Overrides the annotation's plan and
         * planResolver attributes.
         */
        private @Nullable String plan;

        /**
         * Name of a PlanResolver bean picking the plan of a call, instead of 'plan'. Overrides the
         * annotation's plan and planResolver attributes.
         */
        private @Nullable String planResolver;

        /**
         * Plan of a call for which nothing picks one, or whose plan expression or resolver gives null
         * or empty text. Without it, such a call fails.
         */
        private @Nullable String defaultPlan;

        /**
         * Keys whose calls are never limited, whatever their plan: allowed, counted, and never sent
         * to Redis.
         */
        private List<String> unlimitedKeys = new ArrayList<>();

        public @Nullable Algorithm getAlgorithm() {
            return algorithm;
        }

        public void setAlgorithm(@Nullable Algorithm algorithm) {
            this.algorithm = algorithm;
        }

        public List<Limit> getLimits() {
            return limits;
        }

        public void setLimits(List<Limit> limits) {
            this.limits = limits;
        }

        public @Nullable Integer getSubWindows() {
            return subWindows;
        }

        public void setSubWindows(@Nullable Integer subWindows) {
            this.subWindows = subWindows;
        }

        public @Nullable ZoneId getZone() {
            return zone;
        }

        public void setZone(@Nullable ZoneId zone) {
            this.zone = zone;
        }

        public @Nullable Integer getAnchorDay() {
            return anchorDay;
        }

        public void setAnchorDay(@Nullable Integer anchorDay) {
            this.anchorDay = anchorDay;
        }

        public @Nullable Duration getMaxWait() {
            return maxWait;
        }

        public void setMaxWait(@Nullable Duration maxWait) {
            this.maxWait = maxWait;
        }

        public Lease getLease() {
            return lease;
        }

        public void setLease(Lease lease) {
            this.lease = lease;
        }

        public @Nullable FailurePolicy getOnRedisFailure() {
            return onRedisFailure;
        }

        public void setOnRedisFailure(@Nullable FailurePolicy onRedisFailure) {
            this.onRedisFailure = onRedisFailure;
        }

        public @Nullable RetunePolicy getOnRetune() {
            return onRetune;
        }

        public void setOnRetune(@Nullable RetunePolicy onRetune) {
            this.onRetune = onRetune;
        }

        public @Nullable Boolean getShadow() {
            return shadow;
        }

        public void setShadow(@Nullable Boolean shadow) {
            this.shadow = shadow;
        }

        public Map<String, Plan> getPlans() {
            return plans;
        }

        public void setPlans(Map<String, Plan> plans) {
            this.plans = plans;
        }

        public @Nullable String getPlan() {
            return plan;
        }

        public void setPlan(@Nullable String plan) {
            this.plan = plan;
        }

        public @Nullable String getPlanResolver() {
            return planResolver;
        }

        public void setPlanResolver(@Nullable String planResolver) {
            this.planResolver = planResolver;
        }

        public @Nullable String getDefaultPlan() {
            return defaultPlan;
        }

        public void setDefaultPlan(@Nullable String defaultPlan) {
            this.defaultPlan = defaultPlan;
        }

        public List<String> getUnlimitedKeys() {
            return unlimitedKeys;
        }

        public void setUnlimitedKeys(List<String> unlimitedKeys) {
            this.unlimitedKeys = unlimitedKeys;
        }

    }

    /**
     * Local leasing of a limiter's hot keys: the instances together never admit more than the
     * limit, but over any span w a key may be admitted what the algorithm admits over w + ttl, and
     * up to permits per instance per ttl may go unused (docs/leasing.md, docs/algorithms.md).
     */
    public static class Lease {

        /**
         * Most permits a call on a hot key reserves beyond its own, handed out by this instance
         * without asking Redis. At least 1; unset: no leasing.
         */
        private @Nullable Long permits;

        /**
         * How long leased permits may be handed out after Redis granted them; unused ones then
         * expire. A key is hot on an instance that decided it within this time before.
         */
        private @Nullable Duration ttl;

        public @Nullable Long getPermits() {
            return permits;
        }

        public void setPermits(@Nullable Long permits) {
            this.permits = permits;
        }

        public @Nullable Duration getTtl() {
            return ttl;
        }

        public void setTtl(@Nullable Duration ttl) {
            this.ttl = ttl;
        }

    }

    /**
     * One plan of a limiter: its limits, in the shapes a limiter takes them (limit, window and burst,
     * or limits), or unlimited. The limiter's algorithm and options apply.
     */
    public static class Plan extends Limit {

        /**
         * Several limits checked together, instead of limit, window and burst.
         */
        private List<Limit> limits = new ArrayList<>();

        /**
         * Whether calls of this plan are never limited: allowed, counted, and never sent to Redis.
         */
        private boolean unlimited;

        public List<Limit> getLimits() {
            return limits;
        }

        public void setLimits(List<Limit> limits) {
            this.limits = limits;
        }

        public boolean isUnlimited() {
            return unlimited;
        }

        public void setUnlimited(boolean unlimited) {
            this.unlimited = unlimited;
        }

    }

    /** A rule limiting the HTTP requests whose path matches, as if their handler were annotated. */
    public static class Rule {

        /**
         * Path patterns of the requests the rule limits, in Spring's PathPattern syntax, such as
         * /api/** or /api/orders/{id}; matched against the path within the application.
         */
        private List<String> paths = new ArrayList<>();

        /**
         * HTTP methods the rule limits, such as GET or POST. Empty: every method.
         */
        private List<String> methods = new ArrayList<>();

        /**
         * SpEL condition over the request (#request, #principal, #clientIp): the rule applies only to
         * requests for which it is true.
         */
        private @Nullable String when;

        /**
         * SpEL condition over the request (#request, #principal, #clientIp): the rule does not apply
         * to requests for which it is true.
         */
        private @Nullable String unless;

        /**
         * Name of the limiter deciding the requests: one configured under limiter.limiters, which
         * annotated methods may share.
         */
        private @Nullable String limiter;

        /**
         * SpEL giving the key each request is limited under, such as #clientIp, #principal or
         * #request.getHeader('X-Api-Key'). Empty: one limit shared by every request the rule
         * applies to.
         */
        private @Nullable String key;

        /**
         * Permits each request takes: a whole number of at least 1, or SpEL over the request giving
         * one.
         */
        private String cost = "1";

        public List<String> getPaths() {
            return paths;
        }

        public void setPaths(List<String> paths) {
            this.paths = paths;
        }

        public List<String> getMethods() {
            return methods;
        }

        public void setMethods(List<String> methods) {
            this.methods = methods;
        }

        public @Nullable String getWhen() {
            return when;
        }

        public void setWhen(@Nullable String when) {
            this.when = when;
        }

        public @Nullable String getUnless() {
            return unless;
        }

        public void setUnless(@Nullable String unless) {
            this.unless = unless;
        }

        public @Nullable String getLimiter() {
            return limiter;
        }

        public void setLimiter(@Nullable String limiter) {
            this.limiter = limiter;
        }

        public @Nullable String getKey() {
            return key;
        }

        public void setKey(@Nullable String key) {
            this.key = key;
        }

        public String getCost() {
            return cost;
        }

        public void setCost(String cost) {
            this.cost = cost;
        }

    }

    /** One limit: permits per window, and a burst for bucket algorithms. */
    public static class Limit {

        /**
         * Permits per window; for bucket algorithms the sustained rate is limit/window.
         */
        private @Nullable Long limit;

        /**
         * Length of the window, such as 500ms, 10s or 1h; or, with zone set on the limiter, a
         * calendar window: 1d (from midnight), 1w (from Monday midnight) or 1mo (from midnight of
         * the anchor day).
         */
        private @Nullable Duration window;

        /** The calendar unit written as the window (1w or 1mo); null for a length. */
        private CalendarWindow.@Nullable Unit writtenUnit;

        /**
         * Capacity of a bucket algorithm (token-bucket, leaky-bucket, gcra). Defaults to the limit.
         */
        private @Nullable Long burst;

        public @Nullable Long getLimit() {
            return limit;
        }

        public void setLimit(@Nullable Long limit) {
            this.limit = limit;
        }

        public @Nullable Duration getWindow() {
            return window;
        }

        /** Binds a length (500ms, 10s, 1h, 1d) or a calendar unit (1w, 1mo; weeks and months need a zone). */
        public void setWindow(@Nullable String window) {
            java.util.regex.Matcher calendar = (window != null)
                    ? java.util.regex.Pattern.compile("\\s*(\\d+)\\s*(w|mo)\\s*", java.util.regex.Pattern.CASE_INSENSITIVE).matcher(window) : null;
            if (calendar != null && calendar.matches()) {
                if (!calendar.group(1).equals("1")) {
                    throw new IllegalArgumentException("calendar windows are one day, week or month (1d, 1w, 1mo), not " + window);
                }
                this.writtenUnit = calendar.group(2).equalsIgnoreCase("w") ? CalendarWindow.Unit.WEEK : CalendarWindow.Unit.MONTH;
                this.window = this.writtenUnit.nominal();
            }
            else {
                this.writtenUnit = null;
                this.window = (window != null && !window.isBlank()) ? DurationStyle.detectAndParse(window) : null;
            }
        }

        /** The calendar unit the window was written as (1w, 1mo), or null for a length. */
        public CalendarWindow.@Nullable Unit windowUnit() {
            return writtenUnit;
        }

        public @Nullable Long getBurst() {
            return burst;
        }

        public void setBurst(@Nullable Long burst) {
            this.burst = burst;
        }

    }

    /** How limiters use Redis. */
    public static class Redis {

        /**
         * Longest a decision waits for Redis; a call that takes longer gets the failure policy's
         * answer for itself alone. Limiters use a connection of their own with this timeout for
         * their scripts (Lettuce).
         */
        private Duration timeout = Duration.ofMillis(500);

        /**
         * Longest the limiters' connection waits to connect to Redis, and for the commands sent at
         * start-up (loading the scripts).
         */
        private Duration connectTimeout = Duration.ofSeconds(1);

        /**
         * How long calls must keep failing, none succeeding, before Redis counts as out and every
         * limiter follows its failure policy until a probe succeeds. A refused or lost connection
         * counts at once. Zero: every failed call means an outage.
         */
        private Duration outageAfter = Duration.ofSeconds(1);

        /**
         * How often a failed Redis is probed, with a call like the one that failed; decisions return
         * to Redis once it succeeds.
         */
        private Duration probeInterval = Duration.ofMillis(250);

        /**
         * How often each instance announces itself in Redis (one small call, never per decision), and
         * says whether it owes Redis permits admitted while Redis failed. An instance counts as alive
         * for three intervals after its last heartbeat, and at least 15 s; one that misses two is
         * silent, and the others keep within their shares until it has charged. An instance cut off
         * from Redis rejects under 'local' until the others have had four intervals to notice.
         */
        private Duration heartbeatInterval = Duration.ofMillis(500);

        /**
         * How many instances share each limit, instead of those counted by their heartbeats; with
         * on-redis-failure 'local', each decides alone on its share while Redis fails.
         */
        private @Nullable Integer expectedInstances;

        private final Batching batching = new Batching();

        public Duration getTimeout() {
            return timeout;
        }

        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }

        public Duration getConnectTimeout() {
            return connectTimeout;
        }

        public void setConnectTimeout(Duration connectTimeout) {
            this.connectTimeout = connectTimeout;
        }

        public Duration getOutageAfter() {
            return outageAfter;
        }

        public void setOutageAfter(Duration outageAfter) {
            this.outageAfter = outageAfter;
        }

        public Duration getProbeInterval() {
            return probeInterval;
        }

        public void setProbeInterval(Duration probeInterval) {
            this.probeInterval = probeInterval;
        }

        public Duration getHeartbeatInterval() {
            return heartbeatInterval;
        }

        public void setHeartbeatInterval(Duration heartbeatInterval) {
            this.heartbeatInterval = heartbeatInterval;
        }

        public @Nullable Integer getExpectedInstances() {
            return expectedInstances;
        }

        public void setExpectedInstances(@Nullable Integer expectedInstances) {
            this.expectedInstances = expectedInstances;
        }

        public Batching getBatching() {
            return batching;
        }

    }

    /**
     * Decisions that meet in flight sent to Redis as one script call: while two calls are on their
     * way, further decisions queue and go out together; a decision that finds no queue goes out at
     * once, alone.
     */
    public static class Batching {

        /**
         * Whether decisions that queue behind calls in flight, blocking and reactive alike, go to
         * Redis as one script call, which decides each exactly as alone. Raises decisions per second
         * under concurrency; on a Redis Cluster only decisions of one hash slot are batched together.
         */
        private boolean enabled = false;

        /** Most decisions sent in one script call. */
        private int maxSize = 64;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public int getMaxSize() {
            return maxSize;
        }

        public void setMaxSize(int maxSize) {
            this.maxSize = maxSize;
        }

    }

    /**
     * Rejections Redis gave, remembered in this instance until their retry-after, so that a flood on
     * a key over its limit does not reach Redis with every request.
     */
    public static class LocalDenyCache {

        /**
         * Whether a key Redis rejected is rejected locally, without a call to Redis, until the
         * retry-after of that rejection.
         */
        private boolean enabled = false;

        /** Most keys remembered at once; the least recently used are forgotten first. */
        private int maxKeys = 10_000;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public int getMaxKeys() {
            return maxKeys;
        }

        public void setMaxKeys(int maxKeys) {
            this.maxKeys = maxKeys;
        }

    }

    /** HTTP header fields announcing limits to clients. */
    public static class Headers {

        /**
         * Whether responses of limited endpoints carry the IETF RateLimit-Policy and RateLimit header
         * fields (draft-ietf-httpapi-ratelimit-headers), on allowed and rejected calls. Shadow
         * limiters never send them: clients see no change while a limit is rolled out.
         */
        private boolean enabled = true;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

    }

    /** How #clientIp finds the client's address behind proxies. */
    public static class ClientIp {

        /**
         * Addresses and CIDR blocks (IPv4 or IPv6) of the proxies whose forwarding header is believed,
         * such as 10.0.0.0/8. Empty: trust nobody, the client is the socket's peer.
         */
        private List<String> trustedProxies = new ArrayList<>();

        /**
         * Leading bits of an IPv6 client address that identify one client: 64 groups each /64 (one
         * host may hold all of its addresses), 128 takes the exact address.
         */
        private int ipv6PrefixLength = 64;

        /**
         * Header the trusted proxies append the client's address to: 'x-forwarded-for' or
         * 'forwarded' (RFC 7239). Only this one is read: a proxy passes the other through unchanged,
         * as the client wrote it.
         */
        private ForwardedHeader forwardedHeader = ForwardedHeader.X_FORWARDED_FOR;

        public List<String> getTrustedProxies() {
            return trustedProxies;
        }

        public void setTrustedProxies(List<String> trustedProxies) {
            this.trustedProxies = trustedProxies;
        }

        public int getIpv6PrefixLength() {
            return ipv6PrefixLength;
        }

        public void setIpv6PrefixLength(int ipv6PrefixLength) {
            this.ipv6PrefixLength = ipv6PrefixLength;
        }

        public ForwardedHeader getForwardedHeader() {
            return forwardedHeader;
        }

        public void setForwardedHeader(ForwardedHeader forwardedHeader) {
            this.forwardedHeader = forwardedHeader;
        }

    }

    /** The actuator endpoint {@code limiters}. */
    public static class Endpoint {

        private final WriteOperations writeOperations = new WriteOperations();

        public WriteOperations getWriteOperations() {
            return writeOperations;
        }

    }

    /** Operations of the {@code limiters} endpoint that change limits or state: retune, reset, refund. */
    public static class WriteOperations {

        /**
         * Whether the limiters endpoint retunes limiters, resets keys and gives permits back. Off, they
         * are refused with 403 and reads stay open. Turn on only where operators alone reach the
         * endpoint, such as a management port bound to an internal address or behind Spring Security.
         */
        private boolean enabled = false;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

    }

    /** The in-memory backend, also used while Redis fails. */
    public static class Memory {

        /**
         * Keys each limiter keeps in memory; beyond that those whose state returns to idle soonest are
         * forgotten first.
         */
        private long maxKeys = 100_000;

        public long getMaxKeys() {
            return maxKeys;
        }

        public void setMaxKeys(long maxKeys) {
            this.maxKeys = maxKeys;
        }

    }


    /** A limit of calls in flight per key (docs/concurrency-limits.md). */
    public static class ConcurrencyLimit {

        /** Most calls in flight per key at once, across every instance. */
        private @Nullable Long limit;

        /**
         * How long a slot stays taken after its holder last renewed it; running calls renew theirs every
         * third of it, so only the slot of an instance that died comes free after this long.
         */
        private Duration lease = Duration.ofSeconds(30);

        /** How long a call may wait for a slot instead of being rejected. */
        private Duration maxWait = Duration.ZERO;

        /** What this limit decides while Redis fails; default limiter.on-redis-failure. */
        private @Nullable FailurePolicy onRedisFailure;

        public @Nullable Long getLimit() {
            return limit;
        }

        public void setLimit(@Nullable Long limit) {
            this.limit = limit;
        }

        public Duration getLease() {
            return lease;
        }

        public void setLease(Duration lease) {
            this.lease = lease;
        }

        public Duration getMaxWait() {
            return maxWait;
        }

        public void setMaxWait(Duration maxWait) {
            this.maxWait = maxWait;
        }

        public @Nullable FailurePolicy getOnRedisFailure() {
            return onRedisFailure;
        }

        public void setOnRedisFailure(@Nullable FailurePolicy onRedisFailure) {
            this.onRedisFailure = onRedisFailure;
        }
    }
}
