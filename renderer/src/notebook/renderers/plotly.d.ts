// The few calls Kiln makes into plotly.js-dist-min (it ships no types).
declare module 'plotly.js-dist-min' {
  const Plotly: {
    newPlot(element: HTMLElement, data: unknown[], layout?: object, config?: object): Promise<HTMLElement>;
    purge(element: HTMLElement): void;
    Plots: { resize(element: HTMLElement): Promise<void> };
    toImage(element: HTMLElement, options: { format: 'svg' | 'png'; width?: number; height?: number }): Promise<string>;
  };
  export default Plotly;
}
