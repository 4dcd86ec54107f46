import { describe, expect, it } from 'vitest';
import { vegaSpecInHtml, withEmbeddedChart } from './embedded-chart';

// The end of what Altair 4.2's default (html) renderer emits.
const ALTAIR_HTML = `<div id="altair-viz-1"></div><script type="text/javascript">
  var VEGA_DEBUG = (typeof VEGA_DEBUG == "undefined") ? {} : VEGA_DEBUG;
  (function(spec, embedOpt){
    function displayChart(vegaEmbed) { vegaEmbed(outputDiv, spec, embedOpt) }
  })({"mark": "bar", "encoding": {"x": {"field": "a", "type": "quantitative"}}, "$schema": "https://vega.github.io/schema/vega-lite/v4.17.0.json", "datasets": {"d": [{"a": 1}]}}, {"mode": "vega-lite"});
</script>`;

describe('vegaSpecInHtml', () => {
  it("reads the spec out of Altair's HTML without running it", () => {
    const found = vegaSpecInHtml(ALTAIR_HTML);
    expect(found?.mime).toBe('application/vnd.vegalite.v4+json');
    expect(found?.spec).toMatchObject({ mark: 'bar' });
  });

  it('leaves other HTML alone', () => {
    expect(vegaSpecInHtml('<b>x</b>')).toBeNull();
    expect(vegaSpecInHtml('<script>vegaEmbed(x)})(notjson);</script>')).toBeNull();
  });

  it('adds the chart to a bundle that has none, and keeps a bundle that has its own', () => {
    expect(Object.keys(withEmbeddedChart({ 'text/html': ALTAIR_HTML }))).toEqual([
      'text/html',
      'application/vnd.vegalite.v4+json',
    ]);
    const own = { 'text/html': ALTAIR_HTML, 'application/vnd.vegalite.v5+json': {} };
    expect(withEmbeddedChart(own)).toBe(own);
  });
});
