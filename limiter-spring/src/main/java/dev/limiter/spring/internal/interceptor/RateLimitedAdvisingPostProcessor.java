package dev.limiter.spring.internal.interceptor;

import java.util.function.Supplier;

import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;

/**
 * Proxies beans with {@code @RateLimited} methods, and prepares those methods as each bean is
 * created so that a bad limiter or expression stops startup. The rate limit runs before other
 * advice (transactions, caching), so a rejected call costs nothing else.
 */
public final class RateLimitedAdvisingPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor {

    private final Supplier<RateLimitedMethods> methods;

    /** @param methods the limited methods, asked for only once the first bean is processed */
    public RateLimitedAdvisingPostProcessor(Supplier<RateLimitedMethods> methods) {
        this.methods = methods;
        this.advisor = new DefaultPointcutAdvisor(new RateLimitedPointcut(), new RateLimitInterceptor(methods));
        setBeforeExistingAdvisors(true);
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (isEligible(bean, beanName)) {
            methods.get().prepare(AopUtils.getTargetClass(bean));
        }
        return super.postProcessAfterInitialization(bean, beanName);
    }
}
