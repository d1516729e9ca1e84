package dev.limiter.sample;

import java.util.List;

import dev.limiter.spring.RateLimited;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The bean catalogue for API clients, limited per API key by plan (limiter {@code catalog} in
 * application.yml): the plans, their limits and what picks a call's plan are all configuration.
 */
@RestController
@RequestMapping("/api")
public class CatalogController {

    @GetMapping("/catalog")
    @RateLimited(name = "catalog", key = "#apiKey")
    public List<String> catalog(@RequestHeader("X-Api-Key") String apiKey) {
        return List.of("Yirgacheffe", "Huila", "Sidamo", "Santos");
    }
}
