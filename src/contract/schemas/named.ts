import type { TObject } from '@sinclair/typebox';
import { ProjectDetailSchemas, ProjectListItemSchemas } from './projects.js';
import { UnitModelSchemas } from './units.js';

/**
 * The objects the routes that take `fields` answer, whole and selected (field-selected.ts): shared
 * schemas of the app, so the routes refer to them by name and the OpenAPI document lists them once
 * under `components.schemas`.
 */
export const fieldSelectableSchemas: readonly TObject[] = [ProjectListItemSchemas, ProjectDetailSchemas, UnitModelSchemas].flatMap(({ full, selection }) => [full, selection]);
