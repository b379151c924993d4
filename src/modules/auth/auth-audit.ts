import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { PATH_METADATA } from '@nestjs/common/constants';
import { AUTH_METADATA } from '../../common/auth/auth.decorator';

/** Refuses to boot if any route forgot to say who may call it. */
@Injectable()
export class AuthAudit implements OnApplicationBootstrap {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  onApplicationBootstrap(): void {
    const missing: string[] = [];
    for (const wrapper of this.discovery.getControllers()) {
      const instance = wrapper.instance as object | undefined;
      if (!instance) continue;
      const prototype = Object.getPrototypeOf(instance);
      for (const name of this.scanner.getAllMethodNames(prototype)) {
        const handler = prototype[name];
        if (Reflect.getMetadata(PATH_METADATA, handler) === undefined) continue;
        const declared = this.reflector.getAllAndOverride(AUTH_METADATA, [handler, wrapper.metatype as object]);
        if (!declared) missing.push(`${wrapper.name}.${name}`);
      }
    }
    if (missing.length > 0) throw new Error(`Routes without an auth declaration: ${missing.join(', ')}`);
  }
}
