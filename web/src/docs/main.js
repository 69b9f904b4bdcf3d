// The API reference: Swagger UI (swagger-ui-dist, pinned in web/package.json) rendering the
// OpenAPI document the page names in data-openapi, with "Try it out" sending requests to the
// service that serves the page. Everything it loads comes from that service: the validator
// badge, which would ask an outside validator about the document, is off.
import SwaggerUIBundle from 'swagger-ui-dist/swagger-ui-bundle.js'
import 'swagger-ui-dist/swagger-ui.css'
import './reference.css'

const root = document.getElementById('reference')
SwaggerUIBundle({
  domNode: root,
  url: root.dataset.openapi,
  validatorUrl: null,
  deepLinking: true,
  displayRequestDuration: true,
  defaultModelsExpandDepth: 0,
  layout: 'BaseLayout',
  presets: [SwaggerUIBundle.presets.apis],
})
