import {
  BrandingPreviewSchema,
  BrandingSchema,
  BrandingUpdateSchema,
  CustomTextPathSchema,
  CustomTextReadPathSchema,
  CustomTextSchema,
  PromptPartialsPathSchema,
  PromptPartialsSchema,
  PromptSettingsSchema,
  PromptSettingsUpdateSchema,
  TenantSettingsSchema,
  TenantSettingsUpdateSchema,
} from '@smsauth/contracts';
import { textResponse, type Operation } from '@smsauth/service-kit';
import * as branding from '../../domain/branding/branding-settings';
import { previewAppearance } from '../../domain/branding/preview';
import * as prompts from '../../domain/branding/prompts';
import * as tenantSettings from '../../domain/branding/tenant-settings';
import { loginPreview } from '../authorize/preview';
import type { ManagementDependencies, ManagementWrite } from './context';
import { managementOperation } from './declare';
import { record } from './responses';

/**
 * Auth0's `/branding`, `/prompts` and `/tenants/settings`: the tenant's brand, texts and
 * languages, which the hosted pages show (docs/branding.md). Each write tells the pages'
 * appearance cache, after its commit.
 */
export function brandingOperations({ store, clock, sessions, appearanceChanged }: ManagementDependencies, write: ManagementWrite): Operation[] {
  const changed = async <T>(done: Promise<T>): Promise<T> => {
    const result = await done;
    appearanceChanged?.();
    return result;
  };
  const customTextRecord = record('CustomTextRecord', CustomTextSchema);
  return [
    managementOperation({
      method: 'get',
      path: '/branding',
      summary: 'Get the hosted pages\' brand (Auth0\'s shape; {} while nothing is set)',
      scope: 'read:branding',
      status: '200',
      response: record('Branding', BrandingSchema),
      errors: [],
      handle: () => branding.getBranding(store),
    }),
    managementOperation({
      method: 'patch',
      path: '/branding',
      summary: 'Set the hosted pages\' logo, favicon, font and colours (fields given replace, null removes)',
      scope: 'update:branding',
      body: { schema: BrandingUpdateSchema, component: 'BrandingUpdate' },
      status: '200',
      response: record('Branding', BrandingSchema),
      errors: ['400'],
      handle: ({ body, req, res }) => changed(write(req, res, 'Update branding', (tx) => branding.updateBranding(tx, body, clock.now()))),
    }),
    managementOperation({
      method: 'post',
      path: '/branding/preview',
      summary: 'A page of the hosted login in one state and language, as a draft brand and draft texts would show it (nothing is saved)',
      scope: 'read:branding',
      body: { schema: BrandingPreviewSchema, component: 'BrandingPreview' },
      status: '200',
      response: textResponse(
        'The whole page, drawn by the hosted login\'s own views with sample data: the draft brand stylesheet inlined, no script, forms and links inert, and a Content-Security-Policy (also in a `<meta>`) that allows only identity\'s own files and the draft\'s https images and font.',
        'text/html',
        { 'Content-Security-Policy': { description: 'No script, no form submission; styles, images and fonts from identity and the draft\'s https URLs only.', schema: { type: 'string' } } },
      ),
      errors: ['400', '404'],
      handle: async ({ body, res }) => {
        const preview = loginPreview(body.screen, body.language, await previewAppearance(store, body));
        res.set({ 'Content-Security-Policy': preview.contentSecurityPolicy, 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' }).type('text/html; charset=utf-8');
        return preview.html;
      },
    }),
    managementOperation({
      method: 'get',
      path: '/prompts',
      summary: 'Get the prompt settings (Auth0\'s; stored and shown, none acts)',
      scope: 'read:prompts',
      status: '200',
      response: record('PromptSettings', PromptSettingsSchema),
      errors: [],
      handle: () => prompts.getPromptSettings(store),
    }),
    managementOperation({
      method: 'patch',
      path: '/prompts',
      summary: 'Set the prompt settings (Auth0\'s; stored and shown, none acts)',
      scope: 'update:prompts',
      body: { schema: PromptSettingsUpdateSchema, component: 'PromptSettingsUpdate' },
      status: '200',
      response: record('PromptSettings', PromptSettingsSchema),
      errors: ['400'],
      handle: ({ body, req, res }) => write(req, res, 'Update prompt settings', (tx) => prompts.updatePromptSettings(tx, body, clock.now())),
    }),
    managementOperation({
      method: 'get',
      path: '/prompts/:prompt/custom-text/:language',
      summary: 'Get a prompt\'s custom texts in a language ({} when none, and for Auth0\'s prompts the pages do not have)',
      scope: 'read:prompts',
      params: CustomTextReadPathSchema,
      paramDescriptions: {
        prompt: 'One of Auth0\'s prompt names or smsauth; those without texts here answer {}.',
        language: 'A language of the hosted pages (LOGIN_LANGUAGES).',
      },
      status: '200',
      response: customTextRecord,
      errors: ['400'],
      handle: ({ params }) => prompts.getCustomText(store, params.prompt, params.language),
    }),
    managementOperation({
      method: 'put',
      path: '/prompts/:prompt/custom-text/:language',
      summary: 'Replace a prompt\'s custom texts in a language ({} removes them)',
      scope: 'update:prompts',
      params: CustomTextPathSchema,
      paramDescriptions: {
        prompt: 'A prompt whose texts the hosted pages show: login-passwordless, logout, common or smsauth (others are refused).',
        language: 'A language of the hosted pages (LOGIN_LANGUAGES; others are refused).',
      },
      body: { schema: CustomTextSchema, component: 'CustomText' },
      status: '200',
      response: customTextRecord,
      errors: ['400'],
      handle: ({ params, body, req, res }) =>
        changed(
          write(req, res, 'Set custom text', (tx) => prompts.replaceCustomText(tx, params.prompt, params.language, body, clock.now()), {
            id: `${params.prompt}/${params.language}`,
          }),
        ),
    }),
    managementOperation({
      method: 'get',
      path: '/prompts/:prompt/partials',
      summary: 'Get a prompt\'s partials: always {} (the pages take none)',
      scope: 'read:prompts',
      params: PromptPartialsPathSchema,
      status: '200',
      response: record('PromptPartials', PromptPartialsSchema),
      errors: ['400'],
      handle: () => ({}),
    }),
    managementOperation({
      method: 'get',
      path: '/tenants/settings',
      summary: 'Get the tenant settings: the pages\' languages, the session lifetimes in force, the stored Auth0 settings',
      scope: 'read:tenant_settings',
      status: '200',
      response: record('TenantSettings', TenantSettingsSchema),
      errors: [],
      handle: () => tenantSettings.getTenantSettings(store, sessions),
    }),
    managementOperation({
      method: 'patch',
      path: '/tenants/settings',
      summary: 'Set the tenant settings (enabled_locales acts; session lifetimes must be the configured ones; the other Auth0 settings are stored and shown)',
      scope: 'update:tenant_settings',
      body: { schema: TenantSettingsUpdateSchema, component: 'TenantSettingsUpdate' },
      status: '200',
      response: record('TenantSettings', TenantSettingsSchema),
      errors: ['400'],
      handle: ({ body, req, res }) =>
        changed(write(req, res, 'Update tenant settings', (tx) => tenantSettings.updateTenantSettings(tx, body, sessions, clock.now()))),
    }),
  ];
}
