package dev.limiter.sample;

import java.util.Map;

import dev.limiter.spring.RateLimited;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A public status page, limited per client address (limiter {@code status} in application.yml): no
 * user to key by, so {@code #clientIp} is the key, taken from X-Forwarded-For only when the request
 * comes through a trusted proxy ({@code limiter.client-ip.trusted-proxies}).
 */
@RestController
@RequestMapping("/api")
public class StatusController {

    @GetMapping("/status")
    @RateLimited(name = "status", key = "#clientIp")
    public Map<String, String> status() {
        return Map.of("status", "open", "roasting", "tuesday");
    }
}
